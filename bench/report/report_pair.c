/*
 * report_pair.c — pair's report, a renderer of its bundle (output.h): the
 * speed ratio candidate/baseline per scenario both routers ran, the
 * geometric mean of several, and the gate's message.  The baseline is the
 * bundle's first router, the candidate its second.
 */
#include "output.h"

#include "base_internal.h"
#include "gate.h"
#include "metric.h"
#include "report_console.h"

#include <stdio.h>
#include <string.h>

/* The width of the terminal's lines (bench/cli/cli.h CLI_COLUMNS). */
#define PAIR_COLUMNS 100

static void put_wrapped(rb_buf *out, const char *text, size_t indent)
{
    rb_buf_wrap(out, text, indent, 0, PAIR_COLUMNS);
}

/* A line of the pair's summary: the name, its ratio cell (with "~" when
 * the interval holds 1), the pairs the candidate won (timed metrics), the
 * words; name_w and cell_w are the widest of the summary's. */
static void summary_row(rb_buf *out, const rb_bundle *bundle, const char *name, int name_w,
                        const char *cell, int cell_w, double median, size_t wins, size_t n)
{
    char won[32] = "", words[128];
    if (!rb_metric_exact(bundle->metric) && n) /* a column, blank for the geometric mean */
        snprintf(won, sizeof won, "%zu/%zu", wins, n);
    rb_gate_words(median, "candidate", "baseline", words, sizeof words);
    if (rb_metric_exact(bundle->metric))
        rb_buf_printf(out, "  %-*s  %-*s  %s\n", name_w, name, cell_w, cell, words);
    else
        rb_buf_printf(out, "  %-*s  %-*s  %-5s  %s\n", name_w, name, cell_w, cell, won, words);
}

/* The widest A/A spread of the pair's counts over the scenarios (0 when
 * every count is exact): the geometric mean of ratios each within ±s_i is
 * within ±max s_i (the gate's evidence, bundle_gate.c). */
static double widest_spread(const rb_bundle *bundle, const char *la, const char *lb)
{
    double tol = 0;
    for (size_t i = 0; i < bundle->nscenarios; i++) {
        const rb_bundle_pair *p = rb_bundle_find_pair(&bundle->scenarios[i], la, lb);
        if (p && p->r.mde > tol) tol = p->r.mde;
    }
    return tol;
}

/* The summary lines and the gate of a measured pair. */
static int render_pair(const rb_bundle *bundle, rb_buf *out, rb_error *err)
{
    (void)err;
    if (bundle->nrouters < 2) return RB_OK;
    const char *la = bundle->routers[0].name, *lb = bundle->routers[1].name;
    bool exact = rb_metric_exact(bundle->metric);
    double spread = exact ? widest_spread(bundle, la, lb) : 0;
    char counted[64];
    rb_gate_fmt_spread(spread, counted, sizeof counted); /* "exact", "within ±0.3%" */
    rb_buf head = {0};
    rb_buf_printf(&head,
                  "pair: speed ratio candidate/baseline (b/a), baseline a = %s, candidate b = %s "
                  "(above 1: the candidate is faster; %s%s%s)",
                  la, lb, exact ? "counted: " : "",
                  exact ? counted
                        : "[95% interval] the change this run could detect (~: the interval holds "
                          "1, within noise), pairs the candidate won",
                  spread > 0 ? ", the counts' A/A spread" : "");
    rb_buf_puts(out, "\n");
    put_wrapped(out, head.data ? head.data : "pair:", 6);
    rb_buf_free(&head);
    /* the rows: each scenario both ran, then the geometric mean */
    typedef struct row {
        const char *name;
        char cell[128];
        double median;
        size_t wins, n;
    } row;
    row rows[65];
    size_t measured = 0, nrows = 0;
    int name_w = 14, cell_w = 0;
    for (size_t i = 0; i < bundle->nscenarios && nrows < 64; i++) {
        const rb_bundle_pair *p = rb_bundle_find_pair(&bundle->scenarios[i], la, lb);
        if (!p) continue;
        row *x = &rows[nrows++];
        x->name = bundle->scenarios[i].name;
        rb_console_ratio_cell(bundle, p->r.median, p->r.lo, p->r.hi, p->r.mde, p->r.too_few,
                              p->r.excludes_one, x->cell, sizeof x->cell);
        x->median = p->r.median, x->wins = p->r.wins, x->n = p->r.n;
        measured++;
    }
    if (measured > 1 && bundle->ngeomeans == 1) {
        const rb_geomean_result *g = &bundle->geomeans[0].g;
        row *x = &rows[nrows++];
        x->name = "geometric mean";
        rb_console_ratio_cell(bundle, g->geomean, g->lo, g->hi, exact ? spread : g->mde, g->too_few,
                              g->excludes_one, x->cell, sizeof x->cell);
        x->median = g->geomean, x->wins = 0, x->n = 0;
    }
    for (size_t i = 0; i < nrows; i++) {
        if ((int)strlen(rows[i].name) > name_w) name_w = (int)strlen(rows[i].name);
        if ((int)strlen(rows[i].cell) > cell_w) cell_w = (int)strlen(rows[i].cell);
    }
    for (size_t i = 0; i < nrows; i++)
        summary_row(out, bundle, rows[i].name, name_w, rows[i].cell, cell_w, rows[i].median,
                    rows[i].wins, rows[i].n);
    if (measured && bundle->gate.on) put_wrapped(out, bundle->gate.message, 6);
    return RB_OK;
}

const rb_output rb__output_pair = {"pair", NULL, NULL, NULL, render_pair, NULL, false};
