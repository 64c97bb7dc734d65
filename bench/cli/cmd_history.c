/*
 * cmd_history.c — `routebench history DIR`: the saved results of DIR (one
 * per commit) as series per router and scenario, the commits where a step
 * happened, and a chart (bench/report/history.h).
 */
#include "changepoint.h"
#include "cli.h"
#include "history.h"

#include <stdio.h>

typedef struct history_options {
    const char *dir;
    const char *svg;
} history_options;

static const cli_option history_table[] = {
    CLI_OPT_STRING("--svg", "FILE", offsetof(history_options, svg),
                   "also write the chart: a panel per scenario, a line per router across the "
                   "commits, steps ringed, a dashed rule where a new series starts"),
    {0}};

static const cli_command history_command = {
    .name = "history",
    .synopsis = "DIR [--svg FILE]\n",
    .about = "Reads every saved result in DIR (NAME.json summary.json documents and NAME/ bundle "
             "directories, in name order: scripts/history.sh writes them NNN-COMMIT, oldest "
             "first), and prints per scenario the value per lookup of each router at each "
             "commit, then the commits where it stepped.  Counted metrics: every change between "
             "two commits is a step (identical code counts identically), with its size.  Time: "
             "Pettitt's rank test at 1% by binary segmentation over the per-commit medians "
             "(false alarms measured on simulated series without a step: 0.2%).  Results that "
             "are not comparable with the one before (another metric, workload, compiler, "
             "Valgrind or CPU family: as compare) start a new series, named with what changed; "
             "they are never joined.\n",
    .tables = {{"options", history_table, 0}},
    .operand = "DIR",
    .operand_offset = offsetof(history_options, dir),
    .operand_required = true,
    .epilog = "exit status: 0 ok, 2 usage/input error (an unreadable result names its file)\n",
};

int cmd_history(int argc, char **argv)
{
    history_options o = {0};
    int status = cli_args(&history_command, &o, argc, argv);
    if (status != CLI_CONTINUE) return status;
    if (o.svg && cli_check_output_file("history", "--svg", o.svg) != CLI_OK) return CLI_USAGE;
    rb_history h;
    rb_error err;
    if (rb_history_load(o.dir, &h, &err) < 0) return cli_error("history", "%s", err.message);
    status = CLI_OK;
    if (rb_history_analyse(&h, RB_CHANGEPOINT_ALPHA, &err) < 0)
        status = cli_error("history", "%s", err.message);
    rb_buf text = {0}, svg = {0};
    if (status == CLI_OK) {
        rb_history_text(&h, &text);
        if (text.failed) status = cli_error("history", "out of memory");
    }
    if (status == CLI_OK && o.svg) {
        if (rb_history_svg(&h, &svg, &err) < 0)
            status = cli_error("history", "%s", err.message);
        else
            status = cli_write_output("history", o.svg, svg.data, svg.len);
    }
    if (status == CLI_OK) {
        fputs(text.data, stdout);
        if (o.svg) printf("chart: %s\n", o.svg);
    }
    rb_buf_free(&text);
    rb_buf_free(&svg);
    rb_history_free(&h);
    return status;
}
