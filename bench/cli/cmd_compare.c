/*
 * cmd_compare.c — `routebench compare OLD NEW`: two saved results (bundle
 * directories or summary.json documents), per scenario and router the
 * speed ratio NEW against OLD; with --fail-below R the gate of `pair`
 * (bench/bundle/gate.h) on each router.  Refuses results that are not comparable
 * (bench/bundle/compare.h), naming every field that differs.
 */
#include "cli.h"
#include "report_compare.h"

#include <stdio.h>

typedef struct compare_options {
    const char *old_path, *new_path;
    double fail_below; /* 0: no gate */
    bool unpaired_gate;
} compare_options;

static const cli_option compare_table[] = {
    CLI_FAIL_BELOW(
        offsetof(compare_options, fail_below),
        "gate every router on the geometric mean of its ratios NEW/OLD over the scenarios "
        "compared, as pair --fail-below does: 0.97 or 3% fails when NEW is more than 3% slower.  "
        "Outcomes and exit status as pair's: passed 0, FAILED 1, INCONCLUSIVE 3 (the worst router "
        "decides).  Counted metrics only, unless --unpaired-gate"),
    CLI_OPT_FLAG("--unpaired-gate", offsetof(compare_options, unpaired_gate),
                 "gate time results too, on the unpaired interval: the trials of two sessions have "
                 "no partners, so a busier machine in one session moves the ratio as a code change "
                 "would; use it knowing that (pair, which pairs the trials, is the gate for time)",
                 .requires = "--fail-below"),
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

int cmd_compare(int argc, char **argv)
{
    compare_options o = {0};
    int status = cli_args(&compare_command, &o, argc, argv);
    if (status != CLI_CONTINUE) return status;
    if (!o.new_path) return cli_error("compare", "needs two results: OLD NEW");
    rb_bundle old, nw;
    rb_error err;
    if (rb_compare_read(o.old_path, &old, &err) < 0) {
        rb_bundle_free(&old);
        return cli_error("compare", "OLD: %s", err.message);
    }
    if (rb_compare_read(o.new_path, &nw, &err) < 0) {
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
        rb_compare_files f = {&old, &nw, o.old_path, o.new_path};
        rb_buf text = {0};
        int outcome;
        int rc = rb_compare_text(&c, &f, o.fail_below, &text, &outcome, &err);
        cli_put(stdout, &text);
        if (rc < 0)
            status = cli_error("compare", "%s", err.message);
        else if (o.fail_below > 0)
            status = rb_gate_exit_status(outcome);
    }
    rb_compare_free(&c);
    rb_bundle_free(&old);
    rb_bundle_free(&nw);
    return status;
}
