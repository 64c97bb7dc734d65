/*
 * bundle_check.c — recompute a bundle's statistics from its trials and
 * name the ones summary.json got wrong (bundle_check.h).
 */
#include "bundle_check.h"

#include "base_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void compare(rb_bundle_recheck *rep, const char *where, const char *what, double stored,
                    double recomputed, double tolerance)
{
    rep->values++;
    bool same = stored == recomputed || (isnan(stored) && isnan(recomputed)) ||
                (tolerance > 0 && fabs(stored - recomputed) <= tolerance * fabs(recomputed));
    if (same) return;
    rep->differ++;
    if (rep->ndifferences == RB_BUNDLE_MAX_DIFFERENCES) return;
    rb_bundle_difference *d = &rep->differences[rep->ndifferences++];
    snprintf(d->where, sizeof d->where, "%s", where);
    snprintf(d->what, sizeof d->what, "%s", what);
    d->stored = stored;
    d->recomputed = recomputed;
}

static int scenario(rb_bundle *b, size_t si, rb_bundle_recheck *rep, rb_error *err)
{
    rb_bundle_scenario *s = &b->scenarios[si];
    size_t nr = s->nresults, np = s->npairs;
    rb_bundle_result *stored = malloc((nr + 1) * sizeof *stored);
    rb_bundle_pair *pairs = malloc((np + 1) * sizeof *pairs);
    if (!stored || !pairs) {
        free(stored);
        free(pairs);
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    }
    if (nr) memcpy(stored, s->results, nr * sizeof *stored);
    if (np) memcpy(pairs, s->pairs, np * sizeof *pairs);
    int rc = rb_bundle_compute_scenario(b, si, err);
    char where[sizeof rep->differences[0].where];
    for (size_t i = 0; rc == RB_OK && i < nr; i++) {
        const rb_bundle_result *x = &stored[i], *y = &s->results[i];
        snprintf(where, sizeof where, "scenario %s, router %s", s->name, x->router);
        compare(rep, where, "median_ns", x->median_ns, y->median_ns, 0);
        compare(rep, where, "min_ns", x->min_ns, y->min_ns, 0);
        compare(rep, where, "max_ns", x->max_ns, y->max_ns, 0);
        compare(rep, where, "mad_ns", x->mad_ns, y->mad_ns, 0);
        compare(rep, where, "instructions_per_lookup", x->ir_per_lookup, y->ir_per_lookup, 0);
        compare(rep, where, "data_refs_per_lookup", x->data_refs_per_lookup,
                y->data_refs_per_lookup, 0);
        compare(rep, where, "l1_misses_per_lookup", x->l1_misses_per_lookup,
                y->l1_misses_per_lookup, 0);
        compare(rep, where, "ll_misses_per_lookup", x->ll_misses_per_lookup,
                y->ll_misses_per_lookup, 0);
    }
    for (size_t i = 0; rc == RB_OK && i < np; i++) {
        const rb_bundle_pair *x = &pairs[i], *y = rb_bundle_find_pair(s, x->a, x->b);
        snprintf(where, sizeof where, "scenario %s, pair %s/%s", s->name, x->b, x->a);
        compare(rep, where, "median", x->r.median, y ? y->r.median : NAN, 0);
        compare(rep, where, "lo", x->r.lo, y ? y->r.lo : NAN, 0);
        compare(rep, where, "hi", x->r.hi, y ? y->r.hi : NAN, 0);
        compare(rep, where, "wins", (double)x->r.wins, y ? (double)y->r.wins : NAN, 0);
        /* the coverage and the MDE go through log, exp and erfc */
        compare(rep, where, "coverage", x->r.coverage, y ? y->r.coverage : NAN, 1e-12);
        compare(rep, where, "mde", x->r.mde, y ? y->r.mde : NAN, 1e-12);
        compare(rep, where, "too_few", (double)x->r.too_few, y ? (double)y->r.too_few : NAN, 0);
    }
    free(stored);
    free(pairs);
    return rc;
}

int rb_bundle_recheck_stats(rb_bundle *b, rb_bundle_recheck *rep, rb_error *err)
{
    memset(rep, 0, sizeof *rep);
    for (size_t si = 0; si < b->nscenarios; si++) {
        int rc = scenario(b, si, rep, err);
        if (rc < 0) return rc;
    }
    size_t ng = b->ngeomeans;
    rb_bundle_geomean *gm = malloc((ng + 1) * sizeof *gm);
    if (!gm) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    if (ng) memcpy(gm, b->geomeans, ng * sizeof *gm);
    int rc = rb_bundle_compute_geomeans(b, err);
    for (size_t i = 0; rc == RB_OK && i < ng; i++) {
        const rb_bundle_geomean *y = NULL;
        for (size_t k = 0; k < b->ngeomeans; k++)
            if (strcmp(b->geomeans[k].router, gm[i].router) == 0) y = &b->geomeans[k];
        char where[sizeof rep->differences[0].where];
        snprintf(where, sizeof where, "geometric mean of %s vs %s", gm[i].router, gm[i].baseline);
        const double tol = 1e-12;
        compare(rep, where, "geomean", gm[i].g.geomean, y ? y->g.geomean : NAN, tol);
        compare(rep, where, "lo", gm[i].g.lo, y ? y->g.lo : NAN, tol);
        compare(rep, where, "hi", gm[i].g.hi, y ? y->g.hi : NAN, tol);
        compare(rep, where, "mde", gm[i].g.mde, y ? y->g.mde : NAN, tol);
    }
    free(gm);
    return rc;
}

static bool close_to(double x, double y)
{
    return x == y || fabs(x - y) <= 1e-12 * fabs(y);
}

int rb_bundle_recheck_gate(rb_bundle *b, rb_bundle_gate *recorded, bool *agree, rb_error *err)
{
    *agree = true;
    *recorded = b->gate;
    if (!b->gate.on) return RB_OK;
    int rc = rb_bundle_decide_gate(b, err);
    if (rc < 0) return rc;
    const rb_bundle_gate *now = &b->gate;
    *agree = now->outcome == recorded->outcome &&
             strcmp(now->decided_on, recorded->decided_on) == 0 &&
             now->evidence.median == recorded->evidence.median &&
             close_to(now->evidence.lo, recorded->evidence.lo) &&
             close_to(now->evidence.hi, recorded->evidence.hi) &&
             close_to(now->evidence.mde, recorded->evidence.mde);
    return RB_OK;
}
