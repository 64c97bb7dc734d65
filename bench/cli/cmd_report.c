/*
 * cmd_report.c — `routebench report DIR`: check that the statistics in
 * DIR/summary.json are what DIR/trials.csv gives, and that its gate's
 * verdict is what they give (bundle_check.h), then render report.md and
 * the charts again from those two files.
 */
#include "bundle.h"
#include "bundle_check.h"
#include "cli.h"
#include "file.h"
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct report_options {
    const char *dir;
} report_options;

static const cli_command report_command = {
    .name = "report",
    .synopsis = "DIR\n",
    .about = "Reads DIR/summary.json and DIR/trials.csv (a bundle written by run or pair --out "
             "DIR), recomputes every median, spread, ratio, interval and geometric mean from the "
             "trials and compares them with summary.json, and decides a recorded gate (pair "
             "--fail-below) again from them.  When they agree it writes "
             "DIR/report.md and the charts again; when they do not, it names the first "
             "statistics that differ, with both values, and writes nothing.\n",
    .operand = "DIR",
    .operand_offset = offsetof(report_options, dir),
    .operand_required = true,
    .epilog = "exit status: 0 ok, 1 summary.json disagrees with trials.csv (a statistic, or\n"
              "             the gate's verdict), 2 usage/input error\n",
};

/* Both values, with as many digits as it takes to tell them apart. */
static void two_values(double x, double y, char *a, char *b, size_t cap)
{
    for (int digits = 6; digits <= 17; digits++) {
        snprintf(a, cap, "%.*g", digits, x);
        snprintf(b, cap, "%.*g", digits, y);
        if (strcmp(a, b) != 0) return;
    }
}

int cmd_report(int argc, char **argv)
{
    report_options o = {0};
    int status = cli_args(&report_command, &o, argc, argv);
    if (status != CLI_CONTINUE) return status;
    rb_bundle b;
    rb_error err;
    /* report writes DIR again: first undo what a killed writer of DIR left
     * (a bundle moved aside comes back) */
    if (rb_dir_clean_leftovers(o.dir, &err) < 0 || rb_bundle_read_dir(o.dir, &b, &err) < 0)
        return cli_error("report", "%s", err.message);
    rb_bundle_recheck rep;
    int rc = rb_bundle_recheck_stats(&b, &rep, &err);
    if (rc < 0) {
        rb_bundle_free(&b);
        return cli_error("report", "recomputing from trials.csv: %s", err.message);
    }
    if (rep.differ) {
        cli_error("report",
                  "%s/summary.json disagrees with %s/trials.csv on %zu of %zu statistics; "
                  "report.md and the charts are left as they were",
                  o.dir, o.dir, rep.differ, rep.values);
        for (size_t i = 0; i < rep.ndifferences; i++) {
            const rb_bundle_difference *d = &rep.differences[i];
            char a[40], c[40];
            two_values(d->stored, d->recomputed, a, c, sizeof a);
            fprintf(stderr, "  %s: %s is %s in summary.json, %s from trials.csv\n", d->where,
                    d->what, a, c);
        }
        if (rep.differ > rep.ndifferences)
            fprintf(stderr, "  ... and %zu more\n", rep.differ - rep.ndifferences);
        rb_bundle_free(&b);
        return CLI_FAILED;
    }
    rb_bundle_gate recorded;
    bool agree;
    if (rb_bundle_recheck_gate(&b, &recorded, &agree, &err) < 0) {
        rb_bundle_free(&b);
        return cli_error("report", "deciding the gate again: %s", err.message);
    }
    if (!agree) {
        cli_error("report",
                  "the gate re-decided from %s/trials.csv is %s; summary.json records %s; "
                  "report.md and the charts are left as they were",
                  o.dir, rb_gate_outcome_name(b.gate.outcome),
                  rb_gate_outcome_name(recorded.outcome));
        fprintf(stderr, "  now:      %s\n  recorded: %s\n", b.gate.message, recorded.message);
        rb_bundle_free(&b);
        return CLI_FAILED;
    }
    char kept[1024];
    if (rb_bundle_render_dir(o.dir, kept, sizeof kept, &err) < 0) {
        rb_bundle_free(&b);
        return cli_error("report", "%s", err.message);
    }
    if (*kept) printf("left as they were (not files of the bundle): %s\n", kept);
    printf("recomputed %zu statistics from %s/trials.csv: 0 differ from summary.json\n", rep.values,
           o.dir);
    if (b.gate.on)
        printf("gate re-decided from the trials: %s, as recorded (%s)\n",
               rb_gate_outcome_name(b.gate.outcome), b.gate.message);
    printf("rendered again, ");
    cli_print_bundle_files(stdout, o.dir, &b);
    rb_bundle_free(&b);
    return CLI_OK;
}
