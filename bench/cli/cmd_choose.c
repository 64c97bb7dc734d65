/*
 * cmd_choose.c — `routebench choose`: which router for my table.  Every
 * router that accepts the table is measured warm (throughput) and cold
 * (latency, the application stand-in between lookups), in paired rounds;
 * the verdict (bench/bundle/verdict.h) comes first, then the supporting tables.
 * The routes come from a routes file or an OpenAPI document; requests are
 * generated (corpus/reqgen.h) when no requests file is given.
 */
#include "cli.h"
#include "choose_tables.h"
#include "reqgen.h"
#include "router.h"
#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct choose_options {
    const char *routes, *requests, *openapi, *base_path, *routers;
    size_t count;
    session_options s;
} choose_options;

#define C(field) offsetof(choose_options, field)
#define S(field) (offsetof(choose_options, s) + offsetof(session_options, field))
static const cli_option choose_table[] = {
    CLI_OPT_STRING("--routes", "FILE", C(routes), "your route table (METHOD PATTERN lines)",
                   .excludes = "--openapi"),
    CLI_OPT_STRING("--openapi", "FILE", C(openapi),
                   "or your OpenAPI 3.x or Swagger 2.0 document (YAML or JSON): one route per "
                   "operation, under its base path"),
    CLI_OPT_STRING("--base-path", "KEEP|none|/PATH", C(base_path),
                   "with --openapi: the prefix of every route, as for corpus import (default KEEP: "
                   "the document's servers[0].url path or basePath)"),
    CLI_OPT_STRING("--requests", "FILE", C(requests),
                   "your request table (default: generated from the routes, 10% misses, 5% of hits "
                   "with another method, EXPECTED from linear)"),
    CLI_OPT_RANGE(CLI_SIZE, "--count", "N", C(count), 1, RB_REQGEN_MAX_COUNT,
                  "requests to generate", .flags = CLI_SHOW_DEFAULT),
    CLI_OPT_STRING("--routers", "a,b,...", C(routers),
                   "routers to consider (default: every registered router; peer runner names too: "
                   "routebench list names them)"),
    SESSION_OPT_APP_BYTES(S(run.app_bytes),
                          "bytes the application stand-in touches between two cold lookups"),
    CLI_OPT_FLAG(
        "--peers", S(peers_all),
        "also measure the built-in peer runners that are built (scripts/setup.sh --peers)"),
    SESSION_OPT_LANG(S(langs)),
    {0}};
#undef C
#undef S

static const cli_command choose_command = {
    .name = "choose",
    .synopsis = "--routes FILE [--requests FILE] [options]\n"
                "--openapi FILE [--requests FILE] [options]\n",
    .about = "Which router for my table?  Every router that accepts the table is built and "
             "timed in paired rounds twice: warm throughput (lookups back to back) and cold "
             "latency (each lookup waits for the previous answer, and a stand-in for the "
             "application touches --app-bytes of other memory between lookups, outside the timed "
             "intervals; the clock's own cost is measured alone in every round and subtracted).  "
             "Prints the verdict first: the "
             "fastest router with its paired interval over the runner-up (or no significant "
             "difference between the top routers), the smallest, the fastest to build, the "
             "features the table needs and who refused it and why, what auto picks and whether "
             "that is the measured winner, the winner of each condition; then the tables.  "
             "In-process lookup rates, not HTTP requests per second.\n",
    .tables = {{"choose", choose_table, 0},
               {"protocol and outputs (as for run and pair)", session_protocol_table,
                offsetof(choose_options, s)}},
    .epilog = "exit status: 0 ok, 1 a router gave wrong or unstable answers,\n"
              "             2 usage/input error\n",
};

/* --routers, or radix (the baseline) and every registered router. */
static int add_routers(choose_options *o)
{
    int rc = o->routers ? CLI_OK : session_add_router(&o->s, "radix");
    return rc == CLI_OK ? session_add_routers(&o->s, o->routers, NULL, false) : rc;
}

/* Make the tables (bench/suite/choose_tables.h) and tell what was imported
 * or generated. */
static int prepare_tables(choose_options *o, const rb_choose_input *in, rb_choose_tables *t)
{
    rb_error err;
    int rc = rb_choose_tables_make(in, t, &err);
    if (t->imported) {
        const rb_openapi_report *rep = &t->openapi;
        fprintf(stderr, "routebench choose: %s (%s, %s %s): %zu routes from %zu paths\n",
                o->openapi, rep->format, rep->spec, rep->version, rep->routes, rep->paths);
        if (rep->base_path[0])
            fprintf(stderr,
                    "routebench choose: base path %s (from %s) prefixed to every route "
                    "(--base-path none: without)\n",
                    rep->base_path, rep->base_from);
    }
    if (t->generated)
        fprintf(stderr, "routebench choose: %zu requests generated (seed %llu)\n",
                t->generated_count, (unsigned long long)in->seed);
    return rc < 0 ? cli_error("choose", "%s", err.message) : CLI_OK;
}

/* The parsed options: the tables in a temporary directory, then the session. */
static int choose(choose_options *o, int argc, char **argv)
{
    if (!o->routes && !o->openapi)
        return cli_error("choose", "--routes FILE or --openapi FILE is required");
    if (o->base_path && !o->openapi) return cli_error("choose", "--base-path goes with --openapi");
    rb_choose_input in = {o->routes,   o->openapi, o->base_path,
                          o->requests, o->count,   o->s.run.seed};
    rb_choose_tables tables, *t = &tables;
    rb_error err;
    if (rb_choose_tables_dir(t, getenv("TMPDIR"), &err) < 0)
        return cli_error("choose", "%s", err.message);
    int status = prepare_tables(o, &in, t);
    rb_choose_tables_notes(&in, o->s.out != NULL, t);
    o->s.run.source_note = t->note;
    o->s.run.requests_note = t->rnote;
    if (o->s.out) {
        o->s.inputs[0] = t->routes;
        o->s.inputs[1] = t->requests;
        o->s.ninputs = 2;
    }
    o->s.run.both_conditions = true;
    if (status == CLI_OK) status = add_routers(o);
    if (status == CLI_OK) {
        o->s.routes_file = t->routes;
        o->s.requests_file = t->requests;
        status = session_finish_scenarios(&o->s);
    }
    if (status == CLI_OK) {
        rb_bundle b;
        status = session_run(&o->s, argc, argv, &b);
        rb_bundle_free(&b);
    }
    rb_choose_tables_remove(t);
    return status;
}

int cmd_choose(int argc, char **argv)
{
    choose_options o = {.count = RB_REQGEN_DEFAULT_COUNT};
    session_options_init(&o.s, "choose");
    o.s.leave_out = "leave it out with --routers ";
    int status = cli_args(&choose_command, &o, argc, argv);
    if (status == CLI_CONTINUE) status = choose(&o, argc, argv);
    session_options_free(&o.s);
    return status;
}
