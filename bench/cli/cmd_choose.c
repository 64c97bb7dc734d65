/*
 * cmd_choose.c — `routebench choose`: which router for my table.  Every
 * router that accepts the table is measured warm (throughput) and cold
 * (latency, the application stand-in between lookups), in paired rounds;
 * the verdict (bench/bundle/verdict.h) comes first, then the supporting tables.
 * The routes come from a routes file or an OpenAPI document; requests are
 * generated (corpus/reqgen.h) when no requests file is given.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "openapi.h"
#include "reqgen.h"
#include "router.h"
#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct choose_options {
    const char *routes, *requests, *openapi, *base_path, *routers;
    size_t count;
    session_options s;
} choose_options;

#define C(field) offsetof(choose_options, field)
#define S(field) (offsetof(choose_options, s) + offsetof(session_options, field))
static const cli_option choose_table[] = {
    {.name = "--routes",
     .type = CLI_STRING,
     .metavar = "FILE",
     .offset = C(routes),
     .excludes = "--openapi",
     .help = "your route table (METHOD PATTERN lines)"},
    {.name = "--openapi",
     .type = CLI_STRING,
     .metavar = "FILE",
     .offset = C(openapi),
     .help = "or your OpenAPI 3.x or Swagger 2.0 document (YAML or JSON): one route per "
             "operation, under its base path"},
    {.name = "--base-path",
     .type = CLI_STRING,
     .metavar = "KEEP|none|/PATH",
     .offset = C(base_path),
     .help = "with --openapi: the prefix of every route, as for corpus import (default KEEP: "
             "the document's servers[0].url path or basePath)"},
    {.name = "--requests",
     .type = CLI_STRING,
     .metavar = "FILE",
     .offset = C(requests),
     .help = "your request table (default: generated from the routes, 10% misses, 5% of hits "
             "with another method, EXPECTED from linear)"},
    {.name = "--count",
     .type = CLI_SIZE,
     .metavar = "N",
     .offset = C(count),
     .min = 1,
     .max = RB_REQGEN_MAX_COUNT,
     .flags = CLI_SHOW_DEFAULT,
     .help = "requests to generate"},
    {.name = "--routers",
     .type = CLI_STRING,
     .metavar = "a,b,...",
     .offset = C(routers),
     .help = "routers to consider (default: every registered router; peer runner names "
             "too: routebench list names them)"},
    SESSION_OPT_APP_BYTES(S(run.app_bytes),
                          "bytes the application stand-in touches between two cold lookups"),
    {.name = "--peers",
     .type = CLI_FLAG,
     .offset = S(peers_all),
     .help = "also measure the built-in peer runners that are built (scripts/setup.sh --peers)"},
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

static int add_routers(choose_options *o)
{
    if (!o->routers) {
        int rc = session_add_router(&o->s, "radix");
        for (size_t i = 0; i < rb_registry_count() && rc == CLI_OK; i++)
            rc = session_add_ops(&o->s, rb_registry_at(i), rb_ops_name(rb_registry_at(i)));
        return rc;
    }
    for (const char *p = o->routers;;) {
        size_t n = strcspn(p, ",");
        char spec[RB_BUNDLE_NAME];
        if (n == 0 || n >= sizeof spec)
            return cli_error("choose", "--routers: an empty or too long name in '%s'", o->routers);
        snprintf(spec, sizeof spec, "%.*s", (int)n, p);
        int rc = session_add_router(&o->s, spec);
        if (rc != CLI_OK || !p[n]) return rc;
        p += n + 1;
    }
}

/* The tables into dir as s.routes / s.requests (the files scenario and the
 * peers read them). */
static int prepare_tables(choose_options *o, const char *dir, char *rp, char *qp, size_t cap)
{
    rb_route_table routes = {0};
    rb_request_table reqs = {0};
    rb_error err;
    int rc;
    if (o->openapi) {
        rb_openapi_report rep;
        rb_openapi_options opt = {o->base_path};
        rc = rb_openapi_import_file_with(o->openapi, &opt, &routes, &rep, &err);
        if (rc == RB_OK)
            fprintf(stderr, "routebench choose: %s (%s, %s %s): %zu routes from %zu paths\n",
                    o->openapi, rep.format, rep.spec, rep.version, rep.routes, rep.paths);
        if (rc == RB_OK && rep.base_path[0])
            fprintf(stderr,
                    "routebench choose: base path %s (from %s) prefixed to every route "
                    "(--base-path none: without)\n",
                    rep.base_path, rep.base_from);
    } else {
        rc = rb_route_table_read(o->routes, &routes, &err);
    }
    if (rc == RB_OK && o->requests) rc = rb_request_table_read(o->requests, &reqs, &err);
    if (rc == RB_OK && !o->requests) {
        rb_reqgen_config cfg;
        rb_reqgen_config_init(&cfg);
        cfg.count = o->count;
        cfg.seed = o->s.run.seed;
        rc = rb_requests_generate(&routes, &cfg, &reqs, NULL, &err);
        if (rc == RB_OK)
            fprintf(stderr, "routebench choose: %zu requests generated (seed %llu)\n", reqs.count,
                    (unsigned long long)cfg.seed);
    }
    /* named after the source: the scenario takes the routes file's name */
    const char *src = o->openapi ? o->openapi : o->routes, *slash = strrchr(src, '/');
    char base[128];
    snprintf(base, sizeof base, "%s", slash ? slash + 1 : src);
    base[strcspn(base, ".")] = '\0';
    if (!*base) snprintf(base, sizeof base, "table");
    snprintf(rp, cap, "%s/%s.routes", dir, base);
    snprintf(qp, cap, "%s/%s.requests", dir, base);
    if (rc == RB_OK) rc = rb_route_table_write(rp, &routes, NULL, &err);
    if (rc == RB_OK) rc = rb_request_table_write(qp, &reqs, &err);
    rb_route_table_free(&routes);
    rb_request_table_free(&reqs);
    return rc < 0 ? cli_error("choose", "%s", err.message) : CLI_OK;
}

int cmd_choose(int argc, char **argv)
{
    choose_options o = {.count = RB_REQGEN_DEFAULT_COUNT};
    session_options_init(&o.s, "choose");
    o.s.leave_out = "leave it out with --routers ";
    int status = cli_args(&choose_command, &o, argc, argv);
    if (status != CLI_CONTINUE) {
        session_options_free(&o.s);
        return status;
    }
    if (!o.routes && !o.openapi) {
        session_options_free(&o.s);
        return cli_error("choose", "--routes FILE or --openapi FILE is required");
    }
    if (o.base_path && !o.openapi) {
        session_options_free(&o.s);
        return cli_error("choose", "--base-path goes with --openapi");
    }
    char dir[512], rp[600], qp[600];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/routebench-choose-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        session_options_free(&o.s);
        return cli_error("choose", "cannot create a temporary directory in %s",
                         tmp && *tmp ? tmp : "/tmp");
    }
    status = prepare_tables(&o, dir, rp, qp, sizeof rp);
    /* the tables measured go into the bundle, so its sources and
     * fingerprints name files that exist */
    char note[RB_BUNDLE_TEXT], rnote[RB_BUNDLE_TEXT];
    const char *rname = strrchr(rp, '/') + 1, *qname = strrchr(qp, '/') + 1;
    const char *kind = o.openapi ? "OpenAPI document" : "routes file";
    const char *src = o.openapi ? o.openapi : o.routes;
    if (o.s.out)
        snprintf(note, sizeof note, "%s in the bundle, from the %s %s", rname, kind, src);
    else
        snprintf(note, sizeof note, "the %s %s", kind, src);
    if (o.requests)
        snprintf(rnote, sizeof rnote, "%s", o.requests);
    else
        snprintf(rnote, sizeof rnote, "%s%sgenerated from the routes, seed %llu%s",
                 o.s.out ? qname : "", o.s.out ? " in the bundle, " : "",
                 (unsigned long long)o.s.run.seed, o.s.out ? "" : " (--out keeps them)");
    o.s.run.source_note = note;
    o.s.run.requests_note = rnote;
    if (o.s.out) {
        o.s.inputs[0] = rp;
        o.s.inputs[1] = qp;
        o.s.ninputs = 2;
    }
    o.s.run.both_conditions = true;
    o.s.run.drop_refusing = true;
    if (status == CLI_OK) status = add_routers(&o);
    if (status == CLI_OK) {
        o.s.routes_file = rp;
        o.s.requests_file = qp;
        status = session_finish_scenarios(&o.s);
    }
    if (status == CLI_OK) {
        rb_bundle b;
        status = session_run(&o.s, argc, argv, &b);
        rb_bundle_free(&b);
    }
    remove(rp);
    remove(qp);
    rmdir(dir);
    session_options_free(&o.s);
    return status;
}
