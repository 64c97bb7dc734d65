/*
 * report_compare.c — the report of `routebench compare` (report_compare.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "report_compare.h"

#include "base_internal.h"
#include "file.h"
#include "format.h"
#include "metric.h"
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A saved result: a bundle directory (with its trials) or a summary.json
 * document (without). */
int rb_compare_read(const char *path, rb_bundle *b, rb_error *err)
{
    struct stat st;
    if (stat(path, &st) < 0) {
        rb_bundle_init(b);
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "%s: no such file or directory", path);
    }
    if (S_ISDIR(st.st_mode)) return rb_bundle_read_dir(path, b, err);
    char *text = NULL;
    size_t len = 0;
    rb_bundle_init(b);
    int rc = rb_file_read_max(path, RB_FILE_RESULT_MAX, &text, &len, err);
    if (rc == RB_OK) rc = rb_bundle_json_read(text, len, b, err);
    free(text);
    return rc;
}

static void describe(rb_buf *out, const char *role, const char *path, const rb_bundle *b)
{
    rb_buf_printf(out, "  %s %s: commit %s", role, path, b->commit[0] ? b->commit : "unknown");
    if (b->nlibraries > 0 && b->libraries[0].commit[0])
        rb_buf_printf(out, " (routers from a library of %s)", b->libraries[0].commit);
    rb_buf_printf(out, ", %s%s\n", b->date[0] ? "" : "date unknown", b->date);
}

static void rows(rb_buf *out, const rb_compare *c, const rb_bundle *old)
{
    rb_buf_printf(out, "\n  %-20s %-12s %14s %14s  %s\n", "scenario", "router", "OLD", "NEW",
                  "speed ratio NEW vs OLD");
    for (size_t i = 0; i < c->nrows; i++) {
        const rb_compare_row *r = &c->rows[i];
        char ov[32], nv[32], ratio[96], words[96];
        rb_bundle_fmt_value(old, r->old_value, ov, sizeof ov);
        rb_bundle_fmt_value(old, r->new_value, nv, sizeof nv);
        if (r->exact) {
            char x[32], spread[40];
            rb_format_exact_ratio(r->ratio, x, sizeof x);
            rb_gate_fmt_spread(r->spread, spread, sizeof spread); /* "exact", "within ±0.3%" */
            snprintf(ratio, sizeof ratio, "%s %s", x, spread);
        } else if (r->has_interval && !r->unpaired.too_few) {
            char mde[32];
            rb_gate_fmt_mde(r->unpaired.mde, false, mde, sizeof mde);
            snprintf(ratio, sizeof ratio, "%.3f [%.3f, %.3f] unpaired, %s", r->ratio,
                     r->unpaired.lo, r->unpaired.hi, mde);
        } else {
            snprintf(ratio, sizeof ratio, "%.3f (medians; no interval)", r->ratio);
        }
        rb_gate_words(r->ratio, "NEW", "OLD", words, sizeof words);
        rb_buf_printf(out, "  %-20s %-12s %14s %14s  %s: %s\n", r->scenario, r->router, ov, nv,
                      ratio, words);
    }
    if (c->not_compared.len) rb_buf_printf(out, "  not compared: %s\n", c->not_compared.data);
}

/* The gate of every router; *worst the worst outcome. */
static int gate(rb_buf *out, const rb_compare *c, double threshold, int *worst, rb_error *err)
{
    const char *seen[64];
    size_t nseen = 0;
    *worst = RB_GATE_PASSED;
    for (size_t i = 0; i < c->nrows; i++) {
        bool done = false;
        for (size_t k = 0; k < nseen; k++) done |= strcmp(seen[k], c->rows[i].router) == 0;
        if (done || nseen == 64) continue;
        const char *router = seen[nseen++] = c->rows[i].router;
        rb_gate_evidence e;
        size_t k = 0;
        if (rb_compare_evidence(c, router, &e, &k, err) < 0) {
            char why[sizeof err->message];
            snprintf(why, sizeof why, "%s", err->message);
            return rb__error(err, err->code, RB_NO_OFFSET, "gate on %s: %s", router, why);
        }
        rb_gate_verdict v = rb_gate_decide(threshold, &e);
        char what[160];
        if (k == 1)
            snprintf(what, sizeof what, "%s", router);
        else
            snprintf(what, sizeof what, "%s, geometric mean of %zu scenarios", router, k);
        rb_gate_message(&v, &e, what, out);
        rb_buf_puts(out, "\n");
        /* failed beats inconclusive beats passed */
        if (v.outcome == RB_GATE_FAILED ||
            (v.outcome == RB_GATE_INCONCLUSIVE && *worst == RB_GATE_PASSED))
            *worst = v.outcome;
    }
    return RB_OK;
}

int rb_compare_text(const rb_compare *c, const rb_compare_files *f, double threshold, rb_buf *out,
                    int *outcome, rb_error *err)
{
    bool exact = rb_metric_exact(f->old->metric);
    double spread = 0; /* the widest of the rows' counts' A/A spreads */
    for (size_t i = 0; i < c->nrows; i++) spread = fmax(spread, c->rows[i].spread);
    char counted[96];
    rb_gate_fmt_spread(spread, counted, sizeof counted); /* "exact", "within ±0.3%" */
    if (spread > 0) strncat(counted, " (the counts' A/A spread)", sizeof counted - 40);
    rb_buf_printf(out,
                  "compare: speed ratio NEW vs OLD per lookup (above 1: NEW is faster), "
                  "--metric %s, %s%s\n",
                  rb_metric_name(f->old->metric), exact ? "counted: " : "",
                  exact ? counted
                        : "time: unpaired (two sessions: no trial has a partner); Hodges-Lehmann "
                          "ratio, Moses' 95% interval, the change it could detect");
    describe(out, "OLD", f->old_path, f->old);
    describe(out, "NEW", f->new_path, f->nw);
    rows(out, c, f->old);
    *outcome = RB_GATE_PASSED;
    return threshold > 0 ? gate(out, c, threshold, outcome, err) : RB_OK;
}
