/*
 * cmd_pair.c — `routebench pair --a A --b B`: two routers, paired trials in
 * alternating order (AB, BA, ...), the median speed ratio b/a with its
 * bootstrap interval and wins; with --fail-below R a regression gate for
 * CI: exit 1 when the whole interval lies below R.
 */
#include "cli.h"
#include "router.h"
#include "session.h"

#include <stdio.h>
#include <string.h>

/* --fail-below with a noisy metric needs this many pairs. */
#define RB_PAIR_GATE_MIN_TRIALS 7

static const char usage_text[] =
    "usage: routebench pair --a SPEC --b SPEC [--scenario LIST] [--fail-below R] [options]\n"
    "\n"
    "Runs routers A and B in paired trials, alternating the order (AB, BA, ...), and\n"
    "prints the speed ratio b/a (above 1: B is faster): the median over the pairs of\n"
    "(ns per lookup of A) / (ns per lookup of B), its 95% bootstrap interval and the\n"
    "pairs B won.  With several scenarios it also prints the geometric mean of the\n"
    "scenario medians with its interval.  Scenarios whose routes use a feature A or B\n"
    "lacks are skipped.\n"
    "\n"
    "options:\n"
    "  --a SPEC, --b SPEC   the two routers: NAME (routebench list) or NAME@LIB, router\n"
    "                       NAME of plugin library LIB, so two builds of one router\n"
    "                       can be paired: --a radix@old/lib.so --b radix@new/lib.so\n"
    "  --router-lib LIB     load a plugin library first (repeatable)\n"
    "  --scenario LIST      as run --scenarios (default: the default suite)\n"
    "  --routes F --requests F   a scenario from your own files\n"
    "  --fail-below R       exit 1 when the interval lies wholly below R: the interval\n"
    "                       of the one scenario, or of the geometric mean of several\n"
    "                       (e.g. 0.95: fail when B is surely more than 5% slower)\n"
    "  --trials N, --warmup N, --min-trial-ms X, --seed S, --cpu N, --clock C, --out DIR\n"
    "                       as for run (--trials defaults to 9; use more for a gate)\n"
    "\n"
    "exit status: 0 ok, 1 the gate failed (or a router gave wrong answers),\n"
    "             2 usage/input error\n";

/* The summary lines and the gate of a measured pair; returns the status. */
static int report_pair(const session_options *o, const rb_bundle *bundle, int status)
{
    const char *la = o->labels[0], *lb = o->labels[1];
    printf("\npair: speed ratio b/a, a = %s, b = %s (above 1: %s is faster; %s)\n", la, lb, lb,
           rb_metric_exact(bundle->metric)
               ? "counted: exact"
               : "[95% interval] and the change this run could detect");
    size_t measured = 0;
    for (size_t i = 0; i < bundle->nscenarios; i++) {
        const rb_bundle_pair *p = rb_bundle_find_pair(&bundle->scenarios[i], la, lb);
        if (!p) continue;
        printf("  %-24s ", bundle->scenarios[i].name);
        session_print_ratio(bundle, &p->r);
        printf("\n");
        measured++;
    }
    if (measured > 1 && bundle->ngeomeans == 1) {
        char cell[128];
        session_geomean_cell(bundle, &bundle->geomeans[0].g, cell, sizeof cell);
        printf("  %-24s %s\n", "geometric mean", cell);
    }
    if (measured == 0) {
        fprintf(stderr, "routebench pair: no scenario both routers support\n");
        return CLI_USAGE;
    }
    if (!bundle->gate.on) return status;
    printf("%s\n", bundle->gate.message);
    int gate_status = rb_gate_exit_status(bundle->gate.outcome);
    return status == CLI_OK ? gate_status : status;
}

int cmd_pair(int argc, char **argv)
{
    session_options o;
    session_options_init(&o, "pair");
    o.all_or_nothing = true;
    const char *a = NULL, *b = NULL;
    double fail_below = 0;
    bool gate = false;
    int status = CLI_OK;
    for (int i = 1; i < argc && status == CLI_OK; i++) {
        const char *v = NULL;
        int s = session_option(&o, argc, argv, &i);
        if (s < 0) {
            status = CLI_USAGE;
        } else if (s > 0) {
            continue;
        } else if (cli_is_help(argv[i])) {
            fputs(usage_text, stdout);
            session_options_free(&o);
            return CLI_OK;
        } else if (cli_opt(argc, argv, &i, "--a", &v)) {
            a = v;
            if (!v) status = CLI_USAGE;
        } else if (cli_opt(argc, argv, &i, "--b", &v)) {
            b = v;
            if (!v) status = CLI_USAGE;
        } else if (cli_opt(argc, argv, &i, "--fail-below", &v)) {
            gate = true;
            if (!v || !cli_parse_double("--fail-below", v, 1e-6, 1e6, &fail_below))
                status = CLI_USAGE;
        } else {
            status = cli_unknown("pair", argv[i]);
        }
    }
    if (status == CLI_OK && (!a || !b)) {
        fprintf(stderr, "routebench pair: needs --a NAME and --b NAME\n\n%s", usage_text);
        status = CLI_USAGE;
    }
    if (status == CLI_OK) status = session_add_router(&o, a);
    if (status == CLI_OK) status = session_add_router(&o, b);
    if (status == CLI_OK && o.nrouters != 2) {
        fprintf(stderr, "routebench pair: --a and --b name the same router\n");
        status = CLI_USAGE;
    }
    if (status == CLI_OK && gate && !rb_metric_exact(o.metric) &&
        o.proto.trials < RB_PAIR_GATE_MIN_TRIALS) {
        fprintf(stderr,
                "routebench pair: --fail-below needs --trials %d or more with --metric %s "
                "(%u given): fewer pairs cannot tell a regression from noise (or use --metric "
                "instructions, which is exact)\n",
                RB_PAIR_GATE_MIN_TRIALS, rb_metric_name(o.metric), o.proto.trials);
        status = CLI_USAGE;
    }
    if (status == CLI_OK) status = session_finish_scenarios(&o);
    bool handled = false;
    if (status == CLI_OK) status = session_metric_dispatch(&o, argc, argv, &handled);
    if (status != CLI_OK || handled) {
        session_options_free(&o);
        return status;
    }
    if (gate) {
        o.gate.on = true;
        o.gate.threshold = fail_below;
        snprintf(o.gate.a, sizeof o.gate.a, "%s", o.labels[0]);
        snprintf(o.gate.b, sizeof o.gate.b, "%s", o.labels[1]);
    }

    rb_bundle bundle;
    status = session_run(&o, argc, argv, &bundle);
    if (status != CLI_USAGE) status = report_pair(&o, &bundle, status);
    rb_bundle_free(&bundle);
    session_options_free(&o);
    return status;
}
