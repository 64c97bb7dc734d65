/*
 * cmd_run.c — `routebench run`: the benchmark suite.  With no arguments,
 * the default suite (static, params, mixed, catchall at 100, 1,000 and
 * 10,000 routes) over every registered router that supports each shape.
 */
#include "cli.h"
#include "harness.h"
#include "router.h"
#include "session.h"

#include <stdio.h>
#include <string.h>

typedef struct run_options {
    const char *routers, *baseline;
    session_options s;
} run_options;

static const cli_option run_table[] = {
    CLI_OPT_STRING("--routers", "a,b,...", offsetof(run_options, routers),
                   "routers to run (default: every registered router, the limit and every "
                   "--router-lib router); NAME@LIB names router NAME of plugin library LIB (two "
                   "builds side by side); 'limit' is the reference row of an exact match of the "
                   "scenario's own requested paths (docs/measurement.md)"),
    CLI_OPT_STRING("--baseline", "NAME", offsetof(run_options, baseline),
                   "ratios are against it; always run (default: radix, or linear while radix is "
                   "not built in)"),
    {0}};

static const cli_command run_command = {
    .name = "run",
    .synopsis = "[--routers LIST] [--scenarios LIST] [--out DIR] [options]\n",
    .about = "Measures in-process router lookups (not HTTP requests per second): every router "
             "that supports a scenario's routes is built, then timed in paired trials, in "
             "balanced orders shuffled from the seed, trial by trial (or, with --metric "
             "instructions, counted by Callgrind).  Prints per scenario the median per lookup, "
             "its spread, lookups/s, bytes/route, build time and the speed ratio against the "
             "baseline with its 95% interval, MDE and wins; then geometric means.  An estimate "
             "of the run's duration comes first, progress goes to stderr.\n",
    .tables = {{"routers", run_table, 0},
               {"scenarios, conditions and routers (as for pair)", session_option_table,
                offsetof(run_options, s)},
               {"protocol and outputs (as for every measuring command)", session_protocol_table,
                offsetof(run_options, s)}},
    .epilog = "exit status: 0 ok, 1 a router gave wrong or unstable answers,\n"
              "             2 usage/input error\n",
};

/* Fill o->run.routers: the baseline first, then the others (--routers order, or
 * the registry's and then every --router-lib router's). */
static int choose_routers(session_options *o, const char *list, const char *baseline)
{
    int rc;
    if (baseline) {
        rc = session_add_router(o, baseline);
    } else if (rb_registry_find("radix")) {
        rc = session_add_router(o, "radix");
    } else {
        fprintf(stderr, "routebench run: note: radix is not built in; the baseline is linear\n");
        rc = session_add_router(o, "linear");
    }
    return rc == CLI_OK ? session_add_routers(o, list, &o->run.plugins, true) : rc;
}

int cmd_run(int argc, char **argv)
{
    run_options o = {0};
    session_options_init(&o.s, "run");
    o.s.leave_out = "leave it out with --routers ";
    int status = cli_args(&run_command, &o, argc, argv);
    if (status == CLI_CONTINUE) {
        status = choose_routers(&o.s, o.routers, o.baseline);
        if (status == CLI_OK) status = session_finish_scenarios(&o.s);
    } else {
        session_options_free(&o.s);
        return status;
    }
    bool handled = false;
    if (status == CLI_OK) status = session_metric_dispatch(&o.s, argc, argv, &handled);
    if (status == CLI_OK && !handled) {
        rb_bundle b;
        status = session_run(&o.s, argc, argv, &b);
        rb_bundle_free(&b);
    }
    session_options_free(&o.s);
    return status;
}
