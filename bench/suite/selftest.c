/*
 * selftest.c — `pair --self-test`: A/A and A against a slowed copy, K runs
 * each, decided by the gate (selftest.h).
 */
#include "selftest.h"

#include "base_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct selftest {
    const rb_selftest_opts *o;
    const rb_scenario *scenarios;
    size_t n;
    rb_bench_run *aa, *as; /* per scenario: A with A, A with the slowed copy */
    rb_bench_progress_fn progress;
    void *ctx;
} selftest;

static bool counted(const selftest *t)
{
    return rb_metric_exact(t->o->metric);
}

/* "WHAT NAME", or "run K/RUNS" when name is NULL, to the note callback. */
static void note(const selftest *t, const char *what, const char *name, unsigned k, unsigned runs)
{
    if (!t->o->note) return;
    char text[160];
    if (name)
        snprintf(text, sizeof text, "%s %s", what, name);
    else
        snprintf(text, sizeof text, "%s %u/%u", what, k, runs);
    t->o->note(t->ctx, text);
}

/* Measure a prepared run once; order seed from the run number. */
static int measure(const selftest *t, rb_bench_run *run, size_t si, unsigned k, unsigned trials,
                   rb_error *err)
{
    if (counted(t))
        return rb_callgrind_measure(t->o->cg, run, t->o->metric == RB_METRIC_CYCLES_EST, NULL, err);
    rb_bench_protocol p = t->o->proto;
    p.trials = trials;
    p.order_seed = rb_bundle_order_seed(t->o->seed + 7919u * k, si);
    if (t->o->metric == RB_METRIC_HW_INSTRUCTIONS) p.clock = RB_BENCH_CLOCK_HW_INSTRUCTIONS;
    return rb_bench_measure(run, &p, t->progress, t->ctx, err);
}

/* The median per-lookup value of subject k's trials in run. */
static double subject_median(const rb_bench_run *run, uint32_t k)
{
    double xs[64], scratch[64];
    size_t n = 0;
    for (size_t i = 0; i < run->ntrials && n < 64; i++)
        if (run->trials[i].subject == k)
            xs[n++] = (double)run->trials[i].ns / (double)run->trials[i].lookups;
    double m = 0;
    if (n == 0 || rb_stats_median(xs, n, &m, scratch) < 0) return 0;
    return m;
}

/* The slowdown of subject 1 against subject 0 with `spin` iterations:
 * the ratio of their median values per lookup. */
static int slowdown(const selftest *t, size_t si, uint64_t spin, double *ratio,
                    rb_selftest_spin *out, rb_error *err)
{
    rb_bench_run *run = &t->as[si];
    rb_bench_slow_subject(run, 1, spin);
    int rc = measure(t, run, si, 0, 5, err);
    if (rc < 0) return rc;
    double a = subject_median(run, 0), b = subject_median(run, 1);
    out->base = a;
    *ratio = a > 0 ? b / a : 1.0;
    return RB_OK;
}

/* Find the spin that slows scenario si's copy by the effect.  Both
 * subjects go through the wrapper, so A/A and A-slowed differ in the busy
 * work only.  The cost of busy work is not linear in time (the processor
 * overlaps an independent chain with the next lookup), so the spin is
 * searched: grow a probe until it slows A by at least the effect, then
 * narrow the bracket by interpolation (at most 8 measurements), keeping
 * the spin whose measured slowdown came closest.  Counted metrics are
 * linear and land exactly (to one iteration). */
static int calibrate_spin(const selftest *t, size_t si, rb_selftest_spin *out, rb_error *err)
{
    double target = 1.0 + t->o->effect;
    note(t, "calibrating the slowed copy on", t->scenarios[si].spec.name, 0, 0);
    rb_bench_slow_subject(&t->as[si], 0, 0);
    uint64_t lo = 0, hi = RB_SELFTEST_SPIN_PROBE, best = 0;
    double r_lo = 1.0, r_hi = 1.0, best_err = t->o->effect, best_r = 1.0;
    int rc = RB_OK;
    for (int grow = 0; rc == RB_OK && grow < 12; grow++) {
        rc = slowdown(t, si, hi, &r_hi, out, err);
        if (rc < 0) return rc;
        if (fabs(r_hi - target) < best_err)
            best = hi, best_r = r_hi, best_err = fabs(r_hi - target);
        if (r_hi >= target) break;
        lo = hi, r_lo = r_hi;
        hi *= 4;
    }
    for (int step = 0; step < 8 && hi - lo > 1; step++) {
        double f = r_hi > r_lo ? (target - r_lo) / (r_hi - r_lo) : 0.5;
        if (!(f > 0.05 && f < 0.95)) f = 0.5; /* noise: bisect */
        uint64_t mid = lo + (uint64_t)llround(f * (double)(hi - lo));
        if (mid <= lo) mid = lo + 1;
        if (mid >= hi) mid = hi - 1;
        double r;
        rc = slowdown(t, si, mid, &r, out, err);
        if (rc < 0) return rc;
        if (fabs(r - target) < best_err) best = mid, best_r = r, best_err = fabs(r - target);
        if (r < target)
            lo = mid, r_lo = r;
        else
            hi = mid, r_hi = r;
        if (best_err < 0.1 * t->o->effect && !counted(t)) break;
    }
    out->spin = best;
    out->slowdown = best_r;
    rb_bench_slow_subject(&t->as[si], 1, best);
    rb_bench_slow_subject(&t->aa[si], 0, 0);
    rb_bench_slow_subject(&t->aa[si], 1, 0);
    return RB_OK;
}

/* One run of one case over every scenario, decided by the gate. */
static int one_run(const selftest *t, bool slowed, unsigned k, rb_selftest_case *c, double *ratios,
                   double *ses, rb_error *err)
{
    rb_bundle b;
    rb_bundle_init(&b);
    b.metric = t->o->metric;
    b.trials = counted(t) ? 1 : t->o->proto.trials;
    snprintf(b.baseline, sizeof b.baseline, "a");
    int rc = rb_bundle_add_router(&b, "a", "", 0);
    if (rc == RB_OK) rc = rb_bundle_add_router(&b, "b", "", 0);
    for (size_t si = 0; rc == RB_OK && si < t->n; si++) {
        rb_bench_run *run = slowed ? &t->as[si] : &t->aa[si];
        rc = measure(t, run, si, k, t->o->proto.trials, err);
        rb_bundle_scenario *s = rc == RB_OK ? rb_bundle_add_scenario(&b) : NULL;
        if (rc == RB_OK && (!s || !rb_bundle_add_result(s, "a") || !rb_bundle_add_result(s, "b")))
            rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
        if (rc < 0) break;
        snprintf(s->name, sizeof s->name, "%s", t->scenarios[si].spec.name);
        for (size_t i = 0; rc == RB_OK && i < run->ntrials; i++) {
            const rb_bench_trial *x = &run->trials[i];
            rb_bundle_trial bt = {.scenario = si,
                                  .result = x->subject,
                                  .trial = x->trial + 1,
                                  .position = x->position + 1,
                                  .lookups = x->lookups,
                                  .ns = x->ns};
            if (rb_bundle_add_trial(&b, &bt) < 0)
                rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
        }
        if (rc == RB_OK) rc = rb_bundle_compute_scenario(&b, si, err);
    }
    if (rc == RB_OK) rc = rb_bundle_compute_geomeans(&b, err);
    if (rc == RB_OK) {
        b.gate.on = true;
        b.gate.threshold = t->o->threshold;
        snprintf(b.gate.a, sizeof b.gate.a, "a");
        snprintf(b.gate.b, sizeof b.gate.b, "b");
        rc = rb_bundle_decide_gate(&b, err);
    }
    if (rc == RB_OK) {
        const rb_gate_evidence *e = &b.gate.evidence;
        c->runs++;
        c->significant += !e->too_few && (e->lo > 1.0 || e->hi < 1.0);
        c->failed += b.gate.outcome == RB_GATE_FAILED;
        c->inconclusive += b.gate.outcome == RB_GATE_INCONCLUSIVE;
        c->passed += b.gate.outcome == RB_GATE_PASSED;
        ratios[c->runs - 1] = e->median;
        double se = e->exact ? 0.0 : rb_stats_log_se(e->lo, e->hi, e->coverage);
        ses[c->runs - 1] = isfinite(se) ? se : INFINITY;
    }
    rb_bundle_free(&b);
    return rc;
}

static void summarise(rb_selftest_case *c, double *ratios, double *ses)
{
    double scratch[1024];
    if (c->runs == 0) return;
    rb_stats_median(ratios, c->runs, &c->median, scratch);
    rb_stats_minmax(ratios, c->runs, &c->min, &c->max);
    /* infinite SEs (too few pairs) sort last; the median stays finite
     * unless most runs had none */
    double s = 0;
    for (size_t i = 0; i < c->runs; i++)
        if (!isfinite(ses[i])) ses[i] = 1e300;
    rb_stats_median(ses, c->runs, &s, scratch);
    c->se_median = s >= 1e300 ? INFINITY : s;
}

size_t rb_selftest_trials_for_power(const rb_selftest_opts *o, const rb_selftest_case *aa,
                                    const rb_selftest_case *slowed)
{
    double d = log((1.0 + o->effect) * o->threshold);
    if (!(d > 0)) return SIZE_MAX;
    if (rb_metric_exact(o->metric)) return 1;
    double n0 = (double)o->proto.trials;
    double zc = rb_stats_normal_quantile(0.975), zp = rb_stats_normal_quantile(RB_SELFTEST_POWER);
    double from_spread = NAN, from_rate = NAN;
    if (isfinite(aa->se_median) && aa->se_median > 0) {
        double se1 = aa->se_median * sqrt(n0);
        from_spread = pow(se1 * (zc + zp) / d, 2);
    }
    bool reached = false;
    if (slowed->runs > 0) {
        double p = ((double)slowed->failed + 0.5) / ((double)slowed->runs + 1.0);
        double s = rb_stats_normal_quantile(p) + zc;
        /* no detection at all: nothing to extrapolate from */
        if (slowed->failed > 0 && s > 0) from_rate = n0 * pow((zp + zc) / s, 2);
        reached = (double)slowed->failed >= RB_SELFTEST_POWER * (double)slowed->runs;
    }
    double n;
    if (isnan(from_spread) && isnan(from_rate)) return 0;
    if (reached) {
        n = isnan(from_spread) ? n0 : fmin(from_spread, n0);
    } else {
        n = n0 + 1;
        if (!isnan(from_rate)) n = fmax(n, from_rate);
        if (!isnan(from_spread)) n = fmax(n, from_spread);
    }
    if (n > 1e6) return 1000000;
    size_t trials = (size_t)ceil(n - 1e-9);
    return trials < 7 ? 7 : trials;
}

int rb_selftest_run(const rb_selftest_opts *o, const rb_scenario *scenarios, size_t nscenarios,
                    rb_bench_progress_fn progress, void *ctx, rb_selftest_result *out,
                    rb_error *err)
{
    if (!o || !o->a || nscenarios == 0 || !(o->effect > 0 && o->effect < 10) ||
        !(o->threshold > 0) || o->runs == 0 || o->runs > 1000 ||
        (rb_metric_exact(o->metric) && !o->cg))
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "a self-test needs a router, scenarios, an effect in (0, 10), a "
                         "threshold > 0 and 1 to 1000 runs");
    memset(out, 0, sizeof *out);
    selftest t = {o, scenarios, nscenarios, NULL, NULL, progress, ctx};
    t.aa = calloc(nscenarios, sizeof *t.aa);
    t.as = calloc(nscenarios, sizeof *t.as);
    unsigned runs = counted(&t) ? 1 : o->runs;
    double *ratios = calloc(4 * (size_t)runs, sizeof *ratios);
    int rc =
        t.aa && t.as && ratios ? RB_OK : rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    const rb_router_ops *pair[2] = {o->a, o->a};
    size_t prepared = 0;
    for (size_t si = 0; rc == RB_OK && si < nscenarios; si++) {
        note(&t, "building", scenarios[si].spec.name, 0, 0);
        const rb_route_table *routes = &scenarios[si].routes;
        const rb_request_table *reqs = &scenarios[si].requests;
        for (int c = 0; rc == RB_OK && c < 2; c++) {
            rb_bench_run *run = c == 0 ? &t.aa[si] : &t.as[si];
            rc = counted(&t)
                     ? rb_bench_prepare_pinned(run, routes, reqs, pair, 2, RB_CALLGRIND_HASH_SEED,
                                               NULL, NULL, NULL, err)
                     : rb_bench_prepare(run, routes, reqs, pair, 2, NULL, err);
            if (rc < 0 && c == 1) rb_bench_run_free(&t.aa[si]);
        }
        if (rc == RB_OK) prepared = si + 1;
        rb_selftest_spin beyond; /* scenarios past the 16 reported */
        if (rc == RB_OK) rc = calibrate_spin(&t, si, si < 16 ? &out->spins[si] : &beyond, err);
    }
    double *aa_r = ratios, *aa_se = ratios + runs, *as_r = ratios + 2 * runs,
           *as_se = ratios + 3 * runs;
    for (unsigned k = 0; rc == RB_OK && k < runs; k++) {
        note(&t, "A/A and slowed, run", NULL, k + 1, runs);
        rc = one_run(&t, false, k + 1, &out->aa, aa_r, aa_se, err);
        if (rc == RB_OK) rc = one_run(&t, true, k + 1, &out->slowed, as_r, as_se, err);
    }
    if (rc == RB_OK) {
        summarise(&out->aa, aa_r, aa_se);
        summarise(&out->slowed, as_r, as_se);
        out->measured_effect = out->slowed.median > 0 ? 1.0 / out->slowed.median - 1.0 : 0;
        out->trials_for_power = rb_selftest_trials_for_power(o, &out->aa, &out->slowed);
        out->nscenarios = nscenarios;
        out->exact = counted(&t);
    }
    for (size_t si = 0; si < prepared; si++) {
        rb_bench_run_free(&t.aa[si]);
        rb_bench_run_free(&t.as[si]);
    }
    free(t.aa);
    free(t.as);
    free(ratios);
    return rc;
}

int rb_selftest_load(const rb_scenario_list *list, uint64_t seed, const rb_router_ops *a,
                     void (*skip)(void *ctx, const char *name), void *ctx, rb_selftest_loaded *out,
                     rb_error *err)
{
    out->n = 0;
    out->names[0] = '\0';
    out->failed = NULL;
    for (size_t i = 0; i < list->n && out->n < 16; i++) {
        rb_scenario *s = &out->v[out->n];
        if (rb_scenario_load(&list->v[i], seed, s, err) < 0) {
            rb_selftest_loaded_free(out);
            out->failed = list->v[i].name;
            return err->code;
        }
        if (s->features & ~rb_ops_features(a)) {
            if (skip) skip(ctx, s->spec.name);
            rb_scenario_free(s);
            continue;
        }
        size_t len = strlen(out->names);
        snprintf(out->names + len, sizeof out->names - len, "%s%s", len ? ", " : "", s->spec.name);
        out->n++;
    }
    return RB_OK;
}

void rb_selftest_loaded_free(rb_selftest_loaded *l)
{
    for (size_t k = 0; k < l->n; k++) rb_scenario_free(&l->v[k]);
    l->n = 0;
}
