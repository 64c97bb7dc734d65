/*
 * cmd_compare.c — `routebench compare OLD NEW`: two saved results (bundle
 * directories or summary.json documents), per scenario and router the
 * speed ratio NEW against OLD; with --fail-below R the gate of `pair`
 * (bench/bundle/gate.h) on each router.  Refuses results that are not comparable
 * (bench/bundle/compare.h), naming every field that differs.
 */
#include "base_internal.h"
#include "cli.h"
#include "compare.h"
#include "file.h"
#include "format.h"
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct compare_options {
    const char *old_path, *new_path;
    double fail_below; /* 0: no gate */
    bool unpaired_gate;
} compare_options;

static const cli_option compare_table[] = {
    {.name = "--fail-below",
     .type = CLI_CALL,
     .metavar = "R",
     .offset = offsetof(compare_options, fail_below),
     .call = cli_take_fail_below,
     .help = "gate every router on the geometric mean of its ratios NEW/OLD over the scenarios "
             "compared, as pair --fail-below does: 0.97 or 3% fails when NEW is more than 3% "
             "slower.  Outcomes and exit status as pair's: passed 0, FAILED 1, INCONCLUSIVE 3 "
             "(the worst router decides).  Counted metrics only, unless --unpaired-gate"},
    {.name = "--unpaired-gate",
     .type = CLI_FLAG,
     .offset = offsetof(compare_options, unpaired_gate),
     .requires = "--fail-below",
     .help = "gate time results too, on the unpaired interval: the trials of two sessions have "
             "no partners, so a busier machine in one session moves the ratio as a code change "
             "would; use it knowing that (pair, which pairs the trials, is the gate for time)"},
    {0}};

static const cli_command compare_command = {
    .name = "compare",
    .synopsis = "OLD NEW [--fail-below R] [--unpaired-gate]\n",
    .about = "Reads two saved results, OLD and NEW (each a bundle directory written by run or pair "
             "--out, or a summary.json document from --export-json or --json), and prints per "
             "scenario and router the value per lookup in each and the speed ratio NEW vs OLD "
             "(above 1: NEW is faster), in words beside it.  Counted metrics (--metric "
             "instructions, cycles-est) give an exact ratio.  Time results come from two "
             "sessions, so no trial has a partner: the ratio is unpaired (Hodges-Lehmann, with "
             "Moses' 95% interval, from each bundle's trials.csv).  The two results must be "
             "comparable: the same metric, route and request fingerprints, router names (the "
             "part before @LIB), compiler, flags, build type, and for counts Valgrind's version "
             "and the CPU's vendor and family (for time the CPU model); otherwise compare "
             "names every field that differs and exits 2.\n",
    .tables = {{"options", compare_table, 0}},
    .operand = "OLD",
    .operand_offset = offsetof(compare_options, old_path),
    .operand_required = true,
    .operand2 = "NEW",
    .operand2_offset = offsetof(compare_options, new_path),
    .epilog = "exit status: 0 ok (every gate passed), 1 a gate failed, 2 usage/input error\n"
              "             (the results are not comparable: each field that differs is\n"
              "             named), 3 a gate was inconclusive\n",
};

/* A saved result: a bundle directory (with its trials) or a summary.json
 * document (without). */
static int read_result(const char *path, rb_bundle *b, rb_error *err)
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

static void describe(FILE *out, const char *role, const char *path, const rb_bundle *b)
{
    fprintf(out, "  %s %s: commit %s", role, path, b->commit[0] ? b->commit : "unknown");
    if (b->nlibraries > 0 && b->libraries[0].commit[0])
        fprintf(out, " (routers from a library of %s)", b->libraries[0].commit);
    fprintf(out, ", %s%s\n", b->date[0] ? "" : "date unknown", b->date);
}

static void print_rows(FILE *out, const rb_compare *c, const rb_bundle *old)
{
    fprintf(out, "\n  %-20s %-12s %14s %14s  %s\n", "scenario", "router", "OLD", "NEW",
            "speed ratio NEW vs OLD");
    for (size_t i = 0; i < c->nrows; i++) {
        const rb_compare_row *r = &c->rows[i];
        char ov[32], nv[32], ratio[96], words[96];
        rb_bundle_fmt_value(old, r->old_value, ov, sizeof ov);
        rb_bundle_fmt_value(old, r->new_value, nv, sizeof nv);
        if (r->exact) {
            char x[32];
            char spread[40];
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
        fprintf(out, "  %-20s %-12s %14s %14s  %s: %s\n", r->scenario, r->router, ov, nv, ratio,
                words);
    }
    if (c->not_compared.len) fprintf(out, "  not compared: %s\n", c->not_compared.data);
}

/* The gate of every router; returns the worst exit status. */
static int gate(FILE *out, const rb_compare *c, double threshold)
{
    const char *seen[64];
    size_t nseen = 0;
    int worst = RB_GATE_PASSED;
    for (size_t i = 0; i < c->nrows; i++) {
        bool done = false;
        for (size_t k = 0; k < nseen; k++) done |= strcmp(seen[k], c->rows[i].router) == 0;
        if (done || nseen == 64) continue;
        const char *router = seen[nseen++] = c->rows[i].router;
        rb_gate_evidence e;
        size_t k = 0;
        rb_error err;
        if (rb_compare_evidence(c, router, &e, &k, &err) < 0)
            return cli_error("compare", "gate on %s: %s", router, err.message);
        rb_gate_verdict v = rb_gate_decide(threshold, &e);
        char what[160];
        if (k == 1)
            snprintf(what, sizeof what, "%s", router);
        else
            snprintf(what, sizeof what, "%s, geometric mean of %zu scenarios", router, k);
        rb_buf msg = {0};
        rb_gate_message(&v, &e, what, &msg);
        fprintf(out, "%s\n", msg.data ? msg.data : "");
        rb_buf_free(&msg);
        /* failed beats inconclusive beats passed */
        if (v.outcome == RB_GATE_FAILED ||
            (v.outcome == RB_GATE_INCONCLUSIVE && worst == RB_GATE_PASSED))
            worst = v.outcome;
    }
    return rb_gate_exit_status(worst);
}

int cmd_compare(int argc, char **argv)
{
    compare_options o = {0};
    int status = cli_args(&compare_command, &o, argc, argv);
    if (status != CLI_CONTINUE) return status;
    if (!o.new_path) return cli_error("compare", "needs two results: OLD NEW");
    rb_bundle old, nw;
    rb_error err;
    if (read_result(o.old_path, &old, &err) < 0) {
        rb_bundle_free(&old);
        return cli_error("compare", "OLD: %s", err.message);
    }
    if (read_result(o.new_path, &nw, &err) < 0) {
        rb_bundle_free(&old);
        rb_bundle_free(&nw);
        return cli_error("compare", "NEW: %s", err.message);
    }
    status = CLI_OK;
    rb_buf diff = {0};
    size_t ndiff = rb_compare_identity(&old, &nw, &diff);
    if (ndiff > 0) {
        cli_error("compare",
                  "%s and %s are not comparable: %zu field%s differ%s (a changed workload, "
                  "metric or toolchain is a new benchmark, not a regression):",
                  o.old_path, o.new_path, ndiff, ndiff == 1 ? "" : "s", ndiff == 1 ? "s" : "");
        fprintf(stderr, "%s", diff.data ? diff.data : "");
        status = CLI_USAGE;
    }
    rb_buf_free(&diff);
    bool exact = rb_metric_exact(old.metric);
    if (status == CLI_OK && o.fail_below > 0 && !exact && !o.unpaired_gate)
        status =
            cli_error("compare", "--fail-below on time results: the trials of two sessions have no "
                                 "partners, so the machine's state in each session moves the ratio "
                                 "as much as the code does; gate with pair (paired trials) or "
                                 "--metric instructions, or add --unpaired-gate to gate anyway");
    rb_compare c = {0};
    if (status == CLI_OK && rb_compare_rows(&old, &nw, &c, &err) < 0)
        status = cli_error("compare", "%s", err.message);
    if (status == CLI_OK) {
        FILE *out = stdout;
        double spread = 0;
        for (size_t i = 0; i < c.nrows; i++) spread = fmax(spread, c.rows[i].spread);
        char counted[96];
        rb_gate_fmt_spread(spread, counted, sizeof counted); /* "exact", "within ±0.3%" */
        if (spread > 0) strncat(counted, " (the counts' A/A spread)", sizeof counted - 40);
        fprintf(out,
                "compare: speed ratio NEW vs OLD per lookup (above 1: NEW is faster), "
                "--metric %s, %s%s\n",
                rb_metric_name(old.metric), exact ? "counted: " : "",
                exact ? counted
                      : "time: unpaired (two sessions: no trial has a partner); Hodges-Lehmann "
                        "ratio, Moses' 95% interval, the change it could detect");
        describe(out, "OLD", o.old_path, &old);
        describe(out, "NEW", o.new_path, &nw);
        print_rows(out, &c, &old);
        if (o.fail_below > 0) status = gate(out, &c, o.fail_below);
    }
    rb_compare_free(&c);
    rb_bundle_free(&old);
    rb_bundle_free(&nw);
    return status;
}
