/*
 * cmd_report.c — `routebench report DIR`: render report.md, chart.svg and
 * scaling.svg again from DIR/summary.json and DIR/trials.csv, after checking
 * that the statistics in summary.json are what trials.csv gives.
 */
#include "bundle.h"
#include "cli.h"
#include "router_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: routebench report DIR\n"
    "\n"
    "Reads DIR/summary.json and DIR/trials.csv (a bundle written by run or pair\n"
    "--out DIR), recomputes every median, spread, ratio, interval and geometric\n"
    "mean from the trials and compares them with summary.json, decides the recorded\n"
    "gate (pair --fail-below) again from them, then writes DIR/report.md,\n"
    "DIR/chart.svg and DIR/scaling.svg again.\n"
    "\n"
    "exit status: 0 ok, 1 summary.json disagrees with trials.csv (a statistic, or the\n"
    "             gate's verdict), 2 usage/input error\n";

static bool same(double x, double y)
{
    return x == y;
}

/* Equal up to the last bits a C library's log/exp/erfc may differ in. */
static bool close_to(double x, double y)
{
    if (x == y) return true; /* also both infinite */
    return fabs(x - y) <= 1e-12 * fabs(y);
}

/* Recompute b's statistics from its trials; count the values that differ. */
static int recheck(rb_bundle *b, size_t *values, size_t *differ, rb_error *err)
{
    *values = *differ = 0;
    for (size_t si = 0; si < b->nscenarios; si++) {
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
        for (size_t i = 0; rc == RB_OK && i < nr; i++) {
            const rb_bundle_result *x = &stored[i], *y = &s->results[i];
            *values += 8;
            *differ += !same(x->median_ns, y->median_ns) + !same(x->min_ns, y->min_ns) +
                       !same(x->max_ns, y->max_ns) + !same(x->mad_ns, y->mad_ns) +
                       !same(x->ir_per_lookup, y->ir_per_lookup) +
                       !same(x->data_refs_per_lookup, y->data_refs_per_lookup) +
                       !same(x->l1_misses_per_lookup, y->l1_misses_per_lookup) +
                       !same(x->ll_misses_per_lookup, y->ll_misses_per_lookup);
        }
        for (size_t i = 0; rc == RB_OK && i < np; i++) {
            const rb_bundle_pair *y = rb_bundle_find_pair(s, pairs[i].a, pairs[i].b);
            *values += 7;
            if (!y) {
                *differ += 7;
                continue;
            }
            *differ += !same(pairs[i].r.median, y->r.median) + !same(pairs[i].r.lo, y->r.lo) +
                       !same(pairs[i].r.hi, y->r.hi) + (pairs[i].r.wins != y->r.wins) +
                       !close_to(pairs[i].r.coverage, y->r.coverage) +
                       !close_to(pairs[i].r.mde, y->r.mde) + (pairs[i].r.too_few != y->r.too_few);
        }
        free(stored);
        free(pairs);
        if (rc < 0) return rc;
    }
    size_t ng = b->ngeomeans;
    rb_bundle_geomean *gm = malloc((ng + 1) * sizeof *gm);
    if (!gm) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    if (ng) memcpy(gm, b->geomeans, ng * sizeof *gm);
    int rc = rb_bundle_compute_geomeans(b, err);
    for (size_t i = 0; rc == RB_OK && i < ng; i++) {
        *values += 4;
        const rb_bundle_geomean *y = NULL;
        for (size_t k = 0; k < b->ngeomeans; k++)
            if (strcmp(b->geomeans[k].router, gm[i].router) == 0) y = &b->geomeans[k];
        if (!y) {
            *differ += 4;
            continue;
        }
        /* log/exp: allow the last bits to differ between C libraries */
        double tol = 1e-12;
        *differ += (fabs(gm[i].g.geomean - y->g.geomean) > tol * y->g.geomean) +
                   (fabs(gm[i].g.lo - y->g.lo) > tol * y->g.lo) +
                   (fabs(gm[i].g.hi - y->g.hi) > tol * y->g.hi) + !close_to(gm[i].g.mde, y->g.mde);
    }
    free(gm);
    return rc;
}

/* Decide the recorded gate again from the recomputed statistics; false
 * (with a message) when the verdict differs from the recorded one. */
static bool regate(rb_bundle *b, const char *dir, rb_error *err, int *rc)
{
    *rc = RB_OK;
    if (!b->gate.on) return true;
    rb_bundle_gate recorded = b->gate;
    *rc = rb_bundle_decide_gate(b, err);
    if (*rc < 0) return false;
    const rb_bundle_gate *now = &b->gate;
    bool agree = now->outcome == recorded.outcome &&
                 strcmp(now->decided_on, recorded.decided_on) == 0 &&
                 same(now->evidence.median, recorded.evidence.median) &&
                 close_to(now->evidence.lo, recorded.evidence.lo) &&
                 close_to(now->evidence.hi, recorded.evidence.hi) &&
                 close_to(now->evidence.mde, recorded.evidence.mde);
    if (agree) {
        printf("gate re-decided from %s/trials.csv: %s, as recorded (%s)\n", dir,
               rb_gate_outcome_name(now->outcome), now->message);
        return true;
    }
    printf("gate re-decided from %s/trials.csv: %s; summary.json records %s\n"
           "  now:      %s\n  recorded: %s\n",
           dir, rb_gate_outcome_name(now->outcome), rb_gate_outcome_name(recorded.outcome),
           now->message, recorded.message);
    return false;
}

int cmd_report(int argc, char **argv)
{
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            fputs(usage_text, stdout);
            return CLI_OK;
        }
        if (argv[i][0] == '-' || dir) return cli_unknown("report", argv[i]);
        dir = argv[i];
    }
    if (!dir) {
        fprintf(stderr, "routebench report: needs a bundle directory\n\n%s", usage_text);
        return CLI_USAGE;
    }
    rb_bundle b;
    rb_error err;
    if (rb_bundle_read_dir(dir, &b, &err) < 0) {
        fprintf(stderr, "routebench report: %s\n", err.message);
        return CLI_USAGE;
    }
    size_t values, differ;
    int rc = recheck(&b, &values, &differ, &err);
    bool gate_agrees = rc == RB_OK && regate(&b, dir, &err, &rc);
    rb_bundle_free(&b);
    if (rc < 0) {
        fprintf(stderr, "routebench report: recomputing from trials.csv: %s\n", err.message);
        return CLI_USAGE;
    }
    if (rb_bundle_render_dir(dir, &err) < 0) {
        fprintf(stderr, "routebench report: %s\n", err.message);
        return CLI_USAGE;
    }
    printf("recomputed %zu statistics from %s/trials.csv: %zu differ from summary.json\n", values,
           dir, differ);
    printf("wrote %s/report.md, %s/chart.svg, %s/scaling.svg\n", dir, dir, dir);
    return differ || !gate_agrees ? CLI_FAILED : CLI_OK;
}
