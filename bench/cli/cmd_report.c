/*
 * cmd_report.c — `routebench report DIR`: check that the statistics in
 * DIR/summary.json are what DIR/trials.csv gives, and that its gate's
 * verdict is what they give, then render report.md and the charts again
 * from those two files (bench/suite/rerender.h does it; this file prints).
 */
#include "cli.h"
#include "rerender.h"

#include <stdio.h>

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

int cmd_report(int argc, char **argv)
{
    report_options o = {0};
    int status = cli_args(&report_command, &o, argc, argv);
    if (status != CLI_CONTINUE) return status;
    rb_rerender r;
    rb_error err;
    int rc = rb_rerender_dir(o.dir, &r, &err);
    status = CLI_OK;
    const rb_bundle *b = &r.b;
    if (rc < 0) {
        status = cli_error("report", "%s", err.message);
    } else if (rc == RB_RERENDER_STATS_DIFFER) {
        cli_error("report",
                  "%s/summary.json disagrees with %s/trials.csv on %zu of %zu statistics; "
                  "report.md and the charts are left as they were",
                  o.dir, o.dir, r.rep.differ, r.rep.values);
        rb_buf text = {0};
        rb_rerender_differences(&r, &text);
        cli_put(stderr, &text);
        status = CLI_FAILED;
    } else if (rc == RB_RERENDER_GATE_DIFFERS) {
        cli_error("report",
                  "the gate re-decided from %s/trials.csv is %s; summary.json records %s; "
                  "report.md and the charts are left as they were",
                  o.dir, rb_gate_outcome_name(b->gate.outcome),
                  rb_gate_outcome_name(r.recorded.outcome));
        fprintf(stderr, "  now:      %s\n  recorded: %s\n", b->gate.message, r.recorded.message);
        status = CLI_FAILED;
    } else {
        if (*r.kept) printf("left as they were (not files of the bundle): %s\n", r.kept);
        printf("recomputed %zu statistics from %s/trials.csv: 0 differ from summary.json\n",
               r.rep.values, o.dir);
        if (b->gate.on)
            printf("gate re-decided from the trials: %s, as recorded (%s)\n",
                   rb_gate_outcome_name(b->gate.outcome), b->gate.message);
        printf("rendered again, ");
        cli_print_bundle_files(stdout, o.dir, b);
    }
    rb_rerender_free(&r);
    return status;
}
