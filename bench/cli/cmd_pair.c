/*
 * cmd_pair.c — `routebench pair --a A --b B`: two routers, paired trials in
 * balanced shuffled order, the median speed ratio b/a with its interval,
 * minimum detectable effect and wins; with --fail-below R a regression gate
 * for CI (bench/gate.h: passed 0, failed 1, inconclusive 3); with
 * --self-test the gate's own false-alarm and detection rates
 * (bench/selftest.h).
 */
#include "cli.h"
#include "router.h"
#include "selftest.h"
#include "session.h"

#include <stdio.h>
#include <string.h>

/* --fail-below with a noisy metric needs this many pairs. */
#define RB_PAIR_GATE_MIN_TRIALS 7

static const char usage_text[] =
    "usage: routebench pair --a SPEC --b SPEC [--scenario LIST] [--fail-below R] [options]\n"
    "       routebench pair --a SPEC --self-test [--effect P%] [--runs K] [options]\n"
    "\n"
    "Runs routers A and B in paired trials (balanced order, shuffled from the seed) and\n"
    "prints the speed ratio b/a (above 1: B is faster): the median over the pairs of\n"
    "(A per lookup) / (B per lookup), its 95% interval, the change this run could\n"
    "detect (MDE) and the pairs B won; with several scenarios also the geometric mean.\n"
    "With --metric instructions the ratio is exact: Callgrind counts the instructions\n"
    "of one replay per router.  Scenarios whose routes use a feature A or B lacks are\n"
    "skipped.\n"
    "\n"
    "options:\n"
    "  --a SPEC, --b SPEC   the two routers: NAME (routebench list) or NAME@LIB, router\n"
    "                       NAME of plugin library LIB, so two builds of one router\n"
    "                       can be paired: --a radix@old/lib.so --b radix@new/lib.so\n"
    "  --router-lib LIB     load a plugin library first (repeatable)\n"
    "  --scenario LIST      as run --scenarios (default: the default suite)\n"
    "  --routes F --requests F   a scenario from your own files\n"
    "  --metric M           time (default: --clock wall|cpu), instructions (Callgrind,\n"
    "                       exact), cycles-est (Callgrind's cache simulation: L1 hits\n"
    "                       + 5 x LL hits + 35 x RAM), hw-instructions (perf counter)\n"
    "  --fail-below R       the gate, on the interval of the one scenario or of the\n"
    "                       geometric mean of several (0.97: fail when B is surely more\n"
    "                       than 3% slower).  Outcomes: passed (exit 0), FAILED (exit 1:\n"
    "                       the whole interval below R; counted metrics: the exact\n"
    "                       ratio below R), INCONCLUSIVE (exit 3: the threshold lies\n"
    "                       inside the run's noise, MDE > distance to R, or too few\n"
    "                       pairs; the message says how many trials would decide it).\n"
    "                       Needs --trials 7 or more unless the metric is counted\n"
    "  --self-test          can this machine gate A?  Runs A against itself and against\n"
    "                       a copy of A slowed by --effect (busy work per lookup,\n"
    "                       calibrated), --runs times each, with these options, and\n"
    "                       prints the false-alarm rate, the detection rate and the\n"
    "                       trials that would detect the effect 90% of the time\n"
    "  --effect P%          the self-test's slowdown (default 5%)\n"
    "  --runs K             the self-test's runs per case (default 10; 1 when counted)\n"
    "  --trials N, --warmup N, --min-trial-ms X, --seed S, --cpu N, --clock C, --out DIR\n"
    "                       as for run (--trials defaults to 9; 15 for a gate)\n"
    "\n"
    "exit status: 0 ok (gate passed), 1 the gate failed (or a router gave wrong\n"
    "             answers), 2 usage/input error, 3 the gate was inconclusive\n";

/* --effect P or P%: a percentage, 0 < P < 1000. */
static bool parse_percent(const char *v, double *out)
{
    char text[64];
    size_t n = strlen(v);
    if (n == 0 || n >= sizeof text) n = 0;
    memcpy(text, v, n);
    text[n] = '\0';
    if (n && text[n - 1] == '%') text[n - 1] = '\0';
    double p;
    if (!cli_parse_double("--effect (a percentage, e.g. 3%)", text, 0.01, 999, &p)) return false;
    *out = p / 100.0;
    return true;
}

/* The summary lines and the gate of a measured pair; returns the status. */
static int report_pair(const session_options *o, const rb_bundle *bundle, int status)
{
    const char *la = o->labels[0], *lb = o->labels[1];
    printf("\npair: speed ratio b/a, a = %s, b = %s (above 1: %s is faster; %s)\n", la, lb, lb,
           rb_metric_exact(bundle->metric) ? "counted: exact"
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
    double fail_below = 0, effect = RB_SELFTEST_DEFAULT_EFFECT;
    bool gate = false, self_test = false;
    unsigned long long runs = RB_SELFTEST_DEFAULT_RUNS;
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
        } else if (cli_flag(argv, i, "--self-test")) {
            self_test = true;
        } else if (cli_opt(argc, argv, &i, "--effect", &v)) {
            if (!v || !parse_percent(v, &effect)) status = CLI_USAGE;
        } else if (cli_opt(argc, argv, &i, "--runs", &v)) {
            if (!v || !cli_parse_u64("--runs", v, 1, 1000, &runs)) status = CLI_USAGE;
        } else if (cli_opt(argc, argv, &i, "--fail-below", &v)) {
            gate = true;
            if (!v || !cli_parse_double("--fail-below", v, 1e-6, 1e6, &fail_below))
                status = CLI_USAGE;
        } else {
            status = cli_unknown("pair", argv[i]);
        }
    }
    if (status == CLI_OK && self_test && (!a || b)) {
        fprintf(stderr, "routebench pair: --self-test takes --a NAME only (it makes the copy "
                        "of A it compares with)\n");
        status = CLI_USAGE;
    } else if (status == CLI_OK && !self_test && (!a || !b)) {
        fprintf(stderr, "routebench pair: needs --a NAME and --b NAME\n\n%s", usage_text);
        status = CLI_USAGE;
    }
    if (status == CLI_OK) status = session_add_router(&o, a);
    if (status == CLI_OK && !self_test) status = session_add_router(&o, b);
    if (status == CLI_OK && !self_test && o.nrouters != 2) {
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
    if (self_test) {
        status = pair_selftest(&o, effect, (unsigned)runs, gate, fail_below);
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
