/*
 * cmd_run.c — `routebench run`: the benchmark suite.  With no arguments,
 * the default suite (static, params, mixed, catchall at 100, 1,000 and
 * 10,000 routes) over every registered router that supports each shape.
 */
#include "cli.h"
#include "router.h"
#include "session.h"

#include <stdio.h>
#include <string.h>

static const char usage_text[] =
    "usage: routebench run [options]\n"
    "\n"
    "Measures in-process router lookups (not HTTP requests per second): every router\n"
    "that supports a scenario's routes is built, then timed in paired trials, in\n"
    "rotating order, trial by trial.  Prints per scenario the median ns/lookup, its\n"
    "spread, lookups/s, bytes/route, build time and the speed ratio against the\n"
    "baseline with its bootstrap interval and wins; then geometric means.\n"
    "\n"
    "options:\n"
    "  --routers a,b,...    routers to run (default: every registered router and\n"
    "                       every --router-lib router); NAME@LIB names router NAME\n"
    "                       of plugin library LIB (two builds side by side)\n"
    "  --baseline NAME      ratios are against it; always run (default: radix, or\n"
    "                       linear while radix is not built in)\n"
    "  --router-lib LIB     load a plugin library of routers (repeatable)\n"
    "  --scenarios LIST     comma-separated: SHAPE-N (e.g. params-1000), SHAPE (at 100,\n"
    "                       1000, 10000 routes), default, shipped, or a shipped corpus\n"
    "                       name (routebench list); default: the default suite.\n"
    "                       Generator v2; SHAPE-v1-N (mixed-v1-10000) uses v1\n"
    "  --shape S[,S]        the suite of shape S at 100, 1000, 10000 routes (shapes:\n"
    "                       static, params, mixed, catchall, glob)\n"
    "  --routes F --requests F   a scenario from your own files\n"
    "  --trials N           measured trials per router (default 9: with 7 pairs a\n"
    "                       95% interval of the median covers only 87.5%)\n"
    "  --warmup N           discarded warm-up rounds (default 1)\n"
    "  --min-trial-ms X     a trial lasts at least X ms (default 100)\n"
    "  --seed S             corpus generator seed (default 42)\n"
    "  --cpu N              pin to CPU N (sched_setaffinity)\n"
    "  --clock wall|cpu     time trials by elapsed time (CLOCK_MONOTONIC, default) or\n"
    "                       by the thread's CPU time (CLOCK_THREAD_CPUTIME_ID: leaves\n"
    "                       out time other processes held the core; for busy machines)\n"
    "  --out DIR            write the bundle: summary.json, trials.csv, report.md,\n"
    "                       chart.svg, scaling.svg\n"
    "\n"
    "exit status: 0 ok, 1 a router gave wrong or unstable answers, 2 usage/input error\n";

/* Fill o->routers: the baseline first, then the others (--routers order, or
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
    if (rc != CLI_OK) return rc;
    if (!list) {
        for (size_t i = 0; i < rb_registry_count() && rc == CLI_OK; i++)
            rc = session_add_ops(o, rb_registry_at(i), rb_ops_name(rb_registry_at(i)));
        for (size_t i = 0; i < rb_plugins_count(&o->plugins) && rc == CLI_OK; i++) {
            char label[RB_BUNDLE_NAME];
            snprintf(label, sizeof label, "%s@%s", rb_ops_name(rb_plugins_ops(&o->plugins, i)),
                     rb_plugins_lib(&o->plugins, i));
            rc = session_add_ops(o, rb_plugins_ops(&o->plugins, i), label);
        }
        return rc;
    }
    const char *p = list;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char spec[RB_BUNDLE_NAME];
        if (n == 0 || n >= sizeof spec) {
            fprintf(stderr, "routebench run: --routers: empty or too long name\n");
            return CLI_USAGE;
        }
        memcpy(spec, p, n);
        spec[n] = '\0';
        rc = session_add_router(o, spec);
        if (rc != CLI_OK) return rc;
        if (!comma) break;
        p = comma + 1;
    }
    return CLI_OK;
}

/* --shape S[,S]: each shape at 100, 1,000 and 10,000 routes. */
static int add_shapes(session_options *o, const char *list)
{
    const char *p = list;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char shape[16];
        rb_error err;
        if (n == 0 || n >= sizeof shape) n = 0;
        if (n) {
            memcpy(shape, p, n);
            shape[n] = '\0';
        }
        if (!n || rb_scenario_list_add_shape(&o->scenarios, shape, &err) < 0) {
            fprintf(stderr,
                    "routebench run: --shape: '%s' is not a list of shapes (static, "
                    "params, mixed, catchall, glob)\n",
                    list);
            return CLI_USAGE;
        }
        if (!comma) break;
        p = comma + 1;
    }
    o->scenarios_given = true;
    return CLI_OK;
}

int cmd_run(int argc, char **argv)
{
    session_options o;
    session_options_init(&o, "run");
    const char *routers = NULL, *baseline = NULL;
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
        } else if (cli_opt(argc, argv, &i, "--routers", &v)) {
            routers = v;
            if (!v) status = CLI_USAGE;
        } else if (cli_opt(argc, argv, &i, "--baseline", &v)) {
            baseline = v;
            if (!v) status = CLI_USAGE;
        } else if (cli_opt(argc, argv, &i, "--shape", &v)) {
            status = v ? add_shapes(&o, v) : CLI_USAGE;
        } else {
            status = cli_unknown("run", argv[i]);
        }
    }
    if (status == CLI_OK) status = choose_routers(&o, routers, baseline);
    if (status == CLI_OK) status = session_finish_scenarios(&o);
    if (status == CLI_OK) {
        rb_bundle b;
        status = session_run(&o, argc, argv, &b);
        rb_bundle_free(&b);
    }
    session_options_free(&o);
    return status;
}
