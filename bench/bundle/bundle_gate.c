/*
 * bundle_gate.c — the gate of a bundle: its evidence (the one scenario's
 * pair, or the geometric mean of several), its decision (bench/bundle/gate.h),
 * and the per-lookup value of its metric as text.  `pair` decides with these
 * functions after a run, `routebench report DIR` again from trials.csv.
 */
#include "bundle.h"

#include "base_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t rb_bundle_order_seed(uint64_t seed, size_t si)
{
    return (seed ^ UINT64_C(0x6f72646572000000)) + (uint64_t)si; /* "order" */
}

void rb_bundle_fmt_value(const rb_bundle *b, double v, char *buf, size_t cap)
{
    if (b->metric == RB_METRIC_TIME)
        rb_format_ns(v, buf, cap);
    else if (!isfinite(v))
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.2f", v);
}

static void evidence_from_pair(const rb_paired_result *r, bool exact, rb_gate_evidence *e)
{
    *e = (rb_gate_evidence){
        exact, r->n, exact ? false : r->too_few != 0, r->median, r->lo, r->hi, r->coverage, r->mde};
}

int rb_bundle_gate_evidence(const rb_bundle *b, const char *a, const char *bname,
                            rb_gate_evidence *e, char *what, size_t cap, rb_error *err)
{
    bool exact = rb_metric_exact(b->metric);
    const rb_bundle_pair *only = NULL;
    const char *only_name = NULL;
    size_t measured = 0;
    for (size_t i = 0; i < b->nscenarios; i++) {
        const rb_bundle_pair *p = rb_bundle_find_pair(&b->scenarios[i], a, bname);
        if (!p) continue;
        only = p;
        only_name = b->scenarios[i].name;
        measured++;
    }
    if (measured == 0)
        return rb__error(err, RB_ENOTFOUND, RB_NO_OFFSET, "no scenario measured both %s and %s", a,
                         bname);
    if (measured == 1) {
        evidence_from_pair(&only->r, exact, e);
        snprintf(what, cap, "%s", only_name);
        return RB_OK;
    }
    /* several scenarios: the geometric mean of b against a (a is the baseline) */
    for (size_t i = 0; i < b->ngeomeans; i++) {
        const rb_bundle_geomean *g = &b->geomeans[i];
        if (strcmp(g->router, bname) != 0 || strcmp(g->baseline, a) != 0) continue;
        *e = (rb_gate_evidence){exact,         b->trials, exact ? false : g->g.too_few != 0,
                                g->g.geomean,  g->g.lo,   g->g.hi,
                                g->g.coverage, g->g.mde}; /* a count's spread: in lo, hi */
        snprintf(what, cap, "geometric mean of %zu scenarios", g->g.scenarios);
        return RB_OK;
    }
    return rb__error(err, RB_ENOTFOUND, RB_NO_OFFSET,
                     "no geometric mean of %s against %s in the bundle", bname, a);
}

int rb_bundle_decide_gate(rb_bundle *b, rb_error *err)
{
    rb_bundle_gate *g = &b->gate;
    if (!g->on) return RB_OK;
    int rc = rb_bundle_gate_evidence(b, g->a, g->b, &g->evidence, g->decided_on,
                                     sizeof g->decided_on, err);
    if (rc < 0) return rc;
    rb_gate_verdict v = rb_gate_decide(g->threshold, &g->evidence);
    g->outcome = v.outcome;
    g->trials_needed = v.trials_needed;
    rb_buf msg = {0};
    rb_gate_message(&v, &g->evidence, g->decided_on, &msg);
    if (msg.failed) {
        rb_buf_free(&msg);
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    }
    snprintf(g->message, sizeof g->message, "%s", msg.data ? msg.data : "");
    rb_buf_free(&msg);
    return RB_OK;
}

int rb_bundle_noise_note(rb_bundle *b)
{
    if (rb_metric_exact(b->metric) || b->nrouters != 2) return RB_OK;
    rb_gate_evidence e;
    char what[RB_BUNDLE_NAME * 2];
    rb_error err;
    if (rb_bundle_gate_evidence(b, b->routers[0].name, b->routers[1].name, &e, what, sizeof what,
                                &err) < 0)
        return RB_OK; /* nothing measured: nothing to qualify */
    if (e.too_few || !(e.lo > 1.0 || e.hi < 1.0)) return RB_OK;
    uint64_t disturbed = 0, short_trials = 0;
    for (size_t i = 0; i < b->nscenarios; i++)
        for (size_t k = 0; k < b->scenarios[i].nresults; k++) {
            disturbed += b->scenarios[i].results[k].disturbed_trials;
            short_trials += b->scenarios[i].results[k].short_trials;
        }
    char mde[32], load[64] = "";
    rb_gate_fmt_mde(e.mde, false, mde, sizeof mde);
    if (b->loadavg_start >= 0)
        snprintf(load, sizeof load, ", load average %.2f to %.2f on %ld cores", b->loadavg_start,
                 b->loadavg_end, b->cores);
    char text[RB_BUNDLE_TEXT * 2];
    snprintf(text, sizeof text,
             "The difference on %s is significant on the %s, which a noisy machine can produce "
             "on its own: identical builds show a significant difference in up to %.1f%% of "
             "quiet runs, and more when trials are disturbed. This run: %llu of %zu trials "
             "disturbed%s, %llu short, changes above %s detectable. Two builds of the same code "
             "can also differ by code layout alone. --metric instructions tells a code change "
             "from noise exactly.",
             what,
             b->metric == RB_METRIC_HW_INSTRUCTIONS ? "hardware instruction counter"
             : b->cpu_clock                         ? "thread CPU clock"
                                                    : "wall clock",
             100 * (1 - e.coverage), (unsigned long long)disturbed, b->ntrials, load,
             (unsigned long long)short_trials, mde);
    return rb_bundle_add_warning(b, text);
}
