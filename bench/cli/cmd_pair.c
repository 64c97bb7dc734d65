/*
 * cmd_pair.c — `routebench pair --baseline A --candidate B` (--a, --b): two
 * routers, paired trials in balanced shuffled order, the median speed ratio
 * candidate/baseline (b/a) with its interval, in words beside it,
 * minimum detectable effect and wins; with --fail-below R a regression gate
 * for CI (bench/bundle/gate.h: passed 0, failed 1, inconclusive 3); with
 * --self-test the gate's own false-alarm and detection rates
 * (bench/suite/selftest.h).
 */
#include "base_internal.h"
#include "cli.h"
#include "router.h"
#include "selftest.h"
#include "output.h"
#include "session.h"

#include <stdio.h>
#include <string.h>

/* --fail-below with a noisy metric needs this many pairs. */
#define RB_PAIR_GATE_MIN_TRIALS 7

typedef struct pair_options {
    const char *a, *b;
    double fail_below; /* 0: no gate */
    bool self_test;
    double effect; /* the self-test's slowdown, 0.05 for 5% */
    unsigned runs; /* the self-test's runs per case */
    session_options s;
} pair_options;

/* --effect P or P%: a percentage, 0.01 to 999. */
static int take_percent(void *field, const char *v, rb_error *err)
{
    char text[64];
    size_t n = strlen(v);
    if (n == 0 || n >= sizeof text)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "--effect needs a percentage, e.g. 3%%");
    memcpy(text, v, n + 1);
    if (text[n - 1] == '%') text[n - 1] = '\0';
    double p;
    int rc = cli_parse_double("--effect (a percentage, e.g. 3%)", text, 0.01, 999, &p, err);
    if (rc < 0) return rc;
    *(double *)field = p / 100.0;
    return RB_OK;
}

static const cli_option pair_table[] = {
    CLI_OPT_STRING("--baseline", "SPEC", offsetof(pair_options, a),
                   "the reference router, A: NAME (routebench list) or NAME@LIB, router NAME of "
                   "plugin library LIB, so two builds of one router can be paired: --baseline "
                   "radix@old/lib.so --candidate radix@new/lib.so",
                   .alias = "--a", .flags = CLI_REQUIRED),
    CLI_OPT_STRING("--candidate", "SPEC", offsetof(pair_options, b),
                   "the router judged against the baseline, B, the same way (required, except with "
                   "--self-test)",
                   .alias = "--b", .excludes = "--self-test"),
    CLI_FAIL_BELOW(
        offsetof(pair_options, fail_below),
        "the gate, on the interval of the one scenario or of the geometric mean of several: 0.97, "
        "or 3% (the same), fails when the candidate is surely more than 3% slower than the "
        "baseline; from 0.5 to 1 (50% to 0%).  Outcomes: passed (exit 0); FAILED (exit 1: the "
        "whole interval lies below R; a counted metric: the exact ratio is below R); INCONCLUSIVE "
        "(exit 3: too few pairs, or the threshold lies inside the run's noise, its minimum "
        "detectable effect being larger than the distance from 1 to R; the message says how many "
        "trials or which metric would decide it).  Needs --trials 7 or more unless the metric is "
        "counted"),
    CLI_OPT_FLAG("--self-test", offsetof(pair_options, self_test),
                 "can this machine gate A?  Runs A against itself and against a copy of A slowed "
                 "by --effect (busy work after each lookup, calibrated), --runs times each, with "
                 "the other options, and prints the false-alarm rate, the detection rate and the "
                 "trials that would detect the effect in 90% of runs (without --fail-below, the "
                 "gate is set halfway: R = 1 - effect/2)"),
    CLI_OPT_CALL("--effect", "P%", offsetof(pair_options, effect), take_percent,
                 "the self-test's slowdown (default 5%)", .requires = "--self-test"),
    CLI_OPT_RANGE(CLI_UINT, "--runs", "K", offsetof(pair_options, runs), 1, 1000,
                  "the self-test's runs per case (default 10; a counted metric needs 1)",
                  .requires = "--self-test"),
    {0}};

static const cli_command pair_command = {
    .name = "pair",
    .synopsis = "--baseline SPEC --candidate SPEC [--scenarios LIST]\n"
                " [--metric M] [--fail-below R] [options]\n"
                "--baseline SPEC --self-test [--effect P%] [--runs K]\n"
                " [options]\n",
    .about = "Runs the baseline A and the candidate B (--a and --b are the same options) in "
             "paired trials (balanced order, shuffled from the seed) and prints the speed ratio "
             "b/a (above 1: the candidate is faster): the median over the pairs of (A per "
             "lookup) / (B per lookup), its 95% interval, the change this run could detect "
             "(MDE), the pairs B won, and in words \"candidate is 4.8% slower than "
             "baseline\".  With several scenarios it also prints the "
             "geometric mean of the scenario medians with its interval.  With --metric "
             "instructions the ratio is exact: Callgrind counts the instructions of one replay "
             "per router.  Scenarios whose routes use a feature A or B lacks are skipped.\n",
    .tables = {{"routers, gate and self-test", pair_table, 0},
               {"scenarios, conditions and routers (as for run)", session_option_table,
                offsetof(pair_options, s)},
               {"protocol and outputs (as for every measuring command)", session_protocol_table,
                offsetof(pair_options, s)}},
    .epilog = "exit status: 0 ok (the gate passed), 1 the gate failed (or a router gave wrong\n"
              "             answers), 2 usage/input error, 3 the gate was inconclusive\n",
};

/* The pair's report (bench/report/report_pair.c) on the terminal, then
 * the gate's status. */
static int report_pair(const session_options *o, const rb_bundle *bundle, int status)
{
    rb_buf text = {0};
    rb_error err;
    int rc = rb_output_render(rb_output_find("pair"), bundle, &text, &err);
    if (rc == RB_OK && text.data) fwrite(text.data, 1, text.len, o->human);
    rb_buf_free(&text);
    if (rc < 0) return cli_system_error("pair", "%s", err.message);
    bool measured = false;
    for (size_t i = 0; i < bundle->nscenarios && !measured; i++)
        measured =
            rb_bundle_find_pair(&bundle->scenarios[i], o->run.labels[0], o->run.labels[1]) != NULL;
    if (!measured) return cli_error("pair", "no scenario both routers support");
    if (!bundle->gate.on) return status;
    int gate_status = rb_gate_exit_status(bundle->gate.outcome);
    return status == CLI_OK ? gate_status : status;
}

/* The parsed options: the routers, then the self-test or the paired run. */
static int pair(pair_options *po, int argc, char **argv)
{
    session_options *o = &po->s;
    bool gate = po->fail_below > 0;
    int status = CLI_OK;
    if (!po->self_test && !po->b)
        status = cli_error("pair", "needs --candidate SPEC (--b), or --self-test");
    if (status == CLI_OK && gate && !rb_metric_exact(o->run.metric) &&
        o->run.proto.trials < RB_PAIR_GATE_MIN_TRIALS)
        status =
            cli_error("pair",
                      "--fail-below needs --trials %d or more with --metric %s (%u given): "
                      "fewer pairs cannot tell a regression from noise (or use --metric "
                      "instructions, which is exact)",
                      RB_PAIR_GATE_MIN_TRIALS, rb_metric_name(o->run.metric), o->run.proto.trials);
    if (status == CLI_OK) status = session_add_router(o, po->a);
    if (status == CLI_OK && !po->self_test) status = session_add_router(o, po->b);
    if (status == CLI_OK && !po->self_test && o->run.nrouters != 2)
        status = cli_error("pair", "--baseline and --candidate name the same router");
    if (status == CLI_OK) status = session_finish_scenarios(o);
    bool handled = false;
    if (status == CLI_OK) status = session_metric_dispatch(o, argc, argv, &handled);
    if (status != CLI_OK || handled) return status;
    if (po->self_test) return pair_selftest(o, po->effect, po->runs, gate, po->fail_below);
    if (gate) {
        o->run.gate.on = true;
        o->run.gate.threshold = po->fail_below;
        snprintf(o->run.gate.a, sizeof o->run.gate.a, "%s", o->run.labels[0]);
        snprintf(o->run.gate.b, sizeof o->run.gate.b, "%s", o->run.labels[1]);
    }
    rb_bundle bundle;
    status = session_run(o, argc, argv, &bundle);
    if (status != CLI_USAGE) status = report_pair(o, &bundle, status);
    rb_bundle_free(&bundle);
    return status;
}

int cmd_pair(int argc, char **argv)
{
    pair_options po = {0};
    po.effect = RB_SELFTEST_DEFAULT_EFFECT;
    po.runs = RB_SELFTEST_DEFAULT_RUNS;
    session_options_init(&po.s, "pair");
    po.s.leave_out = "pair another router with --a or --b";
    po.s.run.all_or_nothing = true;
    po.s.run.noise_note = true;
    int status = cli_args(&pair_command, &po, argc, argv);
    if (status == CLI_CONTINUE) status = pair(&po, argc, argv);
    session_options_free(&po.s);
    return status;
}
