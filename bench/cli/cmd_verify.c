/*
 * cmd_verify.c — `routebench verify`: conformance of a router on a routes +
 * requests pair, or (--all) of every router on every shipped corpus whose
 * features it supports (bench/measure/verify.h does the work, and
 * bench/report/report_verify.h writes its text and JSON; this file prints).
 * Exit 0 all agree, 1 any disagreement or refusal, 2 usage or input error.
 */
#include "cli.h"
#include "router.h"
#include "shipped.h"
#include "table.h"
#include "report_verify.h"
#include "verify.h"
#include "verify_every.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct verify_options {
    const char *router, *routes, *requests, *corpus;
    bool all, json;
    rb_plugins plugins;
} verify_options;

#define V(field) offsetof(verify_options, field)
static const cli_option verify_table[] = {
    CLI_OPT_STRING(
        "--router", "SPEC", V(router),
        "the router: a name (routebench list), or NAME@LIB for router NAME of plugin library LIB"),
    CLI_OPT_STRING("--routes", "FILE", V(routes), "the route table ...",
                   .requires = "--router --requests"),
    CLI_OPT_STRING("--requests", "FILE", V(requests),
                   "... and the request table with EXPECTED answers",
                   .requires = "--router --routes"),
    CLI_OPT_STRING("--corpus", "NAME", V(corpus),
                   "a shipped corpus instead of the two files (routebench list)",
                   .excludes = "--routes --requests", .requires = "--router"),
    CLI_OPT_FLAG("--all", V(all),
                 "every router (plugin routers too) on every shipped corpus, skipping pairs whose "
                 "features the router lacks",
                 .excludes = "--router --routes --requests --corpus"),
    CLI_ROUTER_LIB(V(plugins), "load a plugin library first (repeatable)"),
    CLI_OPT_FLAG("--json", V(json),
                 "the results as JSON on stdout (schema routebench-verify, docs/measurement.md)"),
    {0}};
#undef V

static const cli_command verify_command = {
    .name = "verify",
    .synopsis = "--router SPEC --routes FILE --requests FILE [--json]\n"
                "--router SPEC --corpus NAME [--json]\n"
                "--all [--router-lib LIB ...] [--json]\n",
    .about = "Looks up every request with the router and checks the answer twice: against "
             "EXPECTED in the requests file, and against the reference router `linear` (same "
             "route id, every capture span, the 405 allowed-methods mask).  Prints N/N agree and "
             "the first disagreements.  An empty route or request table is an error: nothing "
             "would be checked; so is a requests file made for another route table (its "
             "'# routes xxh3:' line names a different fingerprint: both are printed) or an "
             "EXPECTED id beyond the table.  A peer's disagreements (an adapter around a "
             "third-party router, "
             "e.g. r3) are printed but do not fail --all: peers are measured, not held to our "
             "semantics.\n",
    .tables = {{"options", verify_table, 0}},
    .epilog = "exit status: 0 all agree, 1 a disagreement or refused route,\n"
              "             2 usage/input error\n",
};

/* ---- the command ----------------------------------------------------------------------------- */

typedef struct collector {
    rb_verify_doc *doc; /* --json: the runs so far */
    bool input_error;   /* a run failed with an error, not a disagreement */
} collector;

static void each(void *ctx, const rb_verify_run *r)
{
    collector *c = ctx;
    bool error = !r->skipped && r->status < 0;
    if (error) c->input_error = true;
    if (c->doc) {
        rb_verify_doc_add(c->doc, r);
    } else if (error && !r->absent) {
        cli_error("verify", "%s", r->err.message);
    } else {
        rb_buf text = {0};
        rb_verify_run_text(r, &text);
        cli_put(stdout, &text);
    }
}

/* The JSON document of the runs so far, on stdout. */
static int print_json(collector *c, const rb_verify_totals *t)
{
    rb_buf text = {0};
    rb_error err;
    int status = rb_verify_doc_render(c->doc, t, &text, &err) < 0
                     ? cli_system_error("verify", "%s", err.message)
                     : cli_write_output("verify", "-", text.data, text.len);
    rb_buf_free(&text);
    return status;
}

static int verify_all(const verify_options *o, collector *c)
{
    rb_verify_totals tot;
    rb_error err;
    int rc = rb_verify_every(&o->plugins, each, c, &tot, &err);
    if (rc == RB_ENOMEM) return cli_system_error("verify", "out of memory");
    if (rc < 0) return cli_error("verify", "%s", err.message);
    if (c->doc) {
        int s = print_json(c, &tot);
        if (s != CLI_OK) return s;
    } else {
        rb_buf text = {0};
        rb_verify_totals_text(&tot, &text);
        cli_put(stdout, &text);
    }
    return c->input_error ? CLI_USAGE : tot.failed ? CLI_FAILED : CLI_OK;
}

static int verify_one(verify_options *o, collector *c)
{
    char rpath[4096], qpath[4096];
    const char *routes = o->routes, *requests = o->requests;
    if (o->corpus) {
        if (!rb_shipped_path(o->corpus, "routes", rpath, sizeof rpath) ||
            !rb_shipped_path(o->corpus, "requests", qpath, sizeof qpath))
            return cli_error("verify", "no shipped corpus '%s' (routebench list)", o->corpus);
        routes = rpath;
        requests = qpath;
    }
    if (!o->router || !routes)
        return cli_error("verify",
                         "needs --router with --routes and --requests (or --corpus), or --all "
                         "(routebench verify --help)");
    const rb_router_ops *ops = cli_router(&o->plugins, "verify", o->router);
    if (!ops) return CLI_USAGE;
    rb_request_table reqs;
    rb_verify_run r = {.router = o->router,
                       .corpus = o->corpus,
                       .routes_path = routes,
                       .requests_path = requests,
                       .requests = &reqs,
                       .peer = (rb_ops_features(ops) & RB_FEAT_PEER) != 0};
    r.status = rb_verify_files(ops, routes, requests, &reqs, &r.rep, &r.err);
    int status;
    if (r.status < 0 && !c->doc) {
        status = cli_error("verify", "%s", r.err.message);
    } else {
        rb_verify_totals tot = {1, r.status < 0 || !rb_verify_ok(&r.rep), 0, 0};
        each(c, &r);
        status = r.status < 0 ? CLI_USAGE : tot.failed ? CLI_FAILED : CLI_OK;
        if (c->doc && print_json(c, &tot) != CLI_OK) status = CLI_USAGE;
    }
    rb_request_table_free(&reqs);
    return status;
}

int cmd_verify(int argc, char **argv)
{
    verify_options o = {0};
    rb_plugins_init(&o.plugins);
    int status = cli_args(&verify_command, &o, argc, argv);
    if (status == CLI_CONTINUE) {
        collector c = {o.json ? rb_verify_doc_new() : NULL, false};
        if (o.json && !c.doc)
            status = cli_system_error("verify", "out of memory");
        else
            status = o.all ? verify_all(&o, &c) : verify_one(&o, &c);
        rb_verify_doc_free(c.doc);
    }
    rb_plugins_close(&o.plugins);
    return status;
}
