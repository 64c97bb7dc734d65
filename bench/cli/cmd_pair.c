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

typedef struct pair_options {
    const char *a, *b;
    double fail_below; /* 0: no gate */
    session_options s;
} pair_options;

static const cli_option pair_table[] = {
    {.name = "--a",
     .type = CLI_STRING,
     .metavar = "SPEC",
     .offset = offsetof(pair_options, a),
     .flags = CLI_REQUIRED,
     .help = "router A: NAME (routebench list) or NAME@LIB, router NAME of plugin library LIB, "
             "so two builds of one router can be paired: --a radix@old/lib.so --b "
             "radix@new/lib.so"},
    {.name = "--b",
     .type = CLI_STRING,
     .metavar = "SPEC",
     .offset = offsetof(pair_options, b),
     .flags = CLI_REQUIRED,
     .help = "router B, the same way"},
    {.name = "--fail-below",
     .type = CLI_DOUBLE,
     .metavar = "R",
     .offset = offsetof(pair_options, fail_below),
     .dmin = 1e-6,
     .dmax = 1e6,
     .help = "exit 1 when the interval lies wholly below R: the interval of the one scenario, or "
             "of the geometric mean of several (e.g. 0.95: fail when B is surely more than 5% "
             "slower); use more --trials for a gate"},
    {0}};

static const cli_command pair_command = {
    .name = "pair",
    .synopsis = "--a SPEC --b SPEC [--scenarios LIST] [--fail-below R]\n"
                " [options]\n",
    .about = "Runs routers A and B in paired trials, alternating the order (AB, BA, ...), and "
             "prints the speed ratio b/a (above 1: B is faster): the median over the pairs of "
             "(ns per lookup of A) / (ns per lookup of B), its 95% bootstrap interval and the "
             "pairs B won.  With several scenarios it also prints the geometric mean of the "
             "scenario medians with its interval.  Scenarios whose routes use a feature A or B "
             "lacks are skipped.\n",
    .tables = {{"routers and gate", pair_table, 0},
               {"scenarios, protocol and outputs (as for run)", session_option_table,
                offsetof(pair_options, s)}},
    .epilog = "exit status: 0 ok, 1 the gate failed (or a router gave wrong answers),\n"
              "             2 usage/input error\n",
};

int cmd_pair(int argc, char **argv)
{
    pair_options po = {0};
    session_options *o = &po.s;
    session_options_init(o, "pair");
    o->all_or_nothing = true;
    int status = cli_args(&pair_command, &po, argc, argv);
    if (status != CLI_CONTINUE) {
        session_options_free(o);
        return status;
    }
    double fail_below = po.fail_below;
    bool gate = fail_below > 0;
    status = session_add_router(o, po.a);
    if (status == CLI_OK) status = session_add_router(o, po.b);
    if (status == CLI_OK && o->nrouters != 2)
        status = cli_error("pair", "--a and --b name the same router");
    if (status == CLI_OK) status = session_finish_scenarios(o);
    if (status != CLI_OK) {
        session_options_free(o);
        return status;
    }

    rb_bundle bundle;
    status = session_run(o, argc, argv, &bundle);
    if (status != CLI_USAGE) {
        FILE *out = o->human;
        const char *la = o->labels[0], *lb = o->labels[1];
        fprintf(out, "\npair: speed ratio b/a, a = %s, b = %s (above 1: %s is faster)\n", la, lb,
                lb);
        size_t measured = 0;
        const rb_paired_result *only = NULL;
        for (size_t i = 0; i < bundle.nscenarios; i++) {
            const rb_bundle_pair *p = rb_bundle_find_pair(&bundle.scenarios[i], la, lb);
            if (!p) continue;
            fprintf(out, "  %-24s ", bundle.scenarios[i].name);
            session_print_ratio(out, &p->r);
            fprintf(out, "\n");
            only = &p->r;
            measured++;
        }
        double lo = 0, hi = 0;
        if (measured == 1) {
            lo = only->lo;
            hi = only->hi;
        } else if (measured > 1 && bundle.ngeomeans == 1) {
            const rb_geomean_result *g = &bundle.geomeans[0].g;
            char m[32], l[32], h[32];
            rb_bundle_fmt_ratio(g->geomean, m, sizeof m);
            rb_bundle_fmt_ratio(g->lo, l, sizeof l);
            rb_bundle_fmt_ratio(g->hi, h, sizeof h);
            fprintf(out, "  %-24s %s%s [%s, %s]\n", "geometric mean", m, g->excludes_one ? "" : "~",
                    l, h);
            lo = g->lo;
            hi = g->hi;
        }
        if (measured == 0) {
            status = cli_error("pair", "no scenario both routers support");
        } else if (gate) {
            uint64_t disturbed = 0;
            for (size_t i = 0; i < bundle.nscenarios; i++)
                for (size_t k = 0; k < bundle.scenarios[i].nresults; k++)
                    disturbed += bundle.scenarios[i].results[k].disturbed_trials;
            if (disturbed && !bundle.cpu_clock)
                fprintf(out,
                        "note: %llu trials were disturbed (the thread lost the CPU); on a shared "
                        "machine gate with --clock cpu\n",
                        (unsigned long long)disturbed);
            bool failed = hi < fail_below;
            fprintf(out, "gate --fail-below %g: %s (interval [%.3f, %.3f] %s below %g)\n",
                    fail_below, failed ? "FAILED" : "passed", lo, hi,
                    failed ? "lies wholly" : "does not lie wholly", fail_below);
            if (failed) status = CLI_FAILED;
        }
    }
    rb_bundle_free(&bundle);
    session_options_free(o);
    return status;
}
