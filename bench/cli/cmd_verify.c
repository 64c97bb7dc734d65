/*
 * cmd_verify.c — `routebench verify`: conformance of a router on a routes +
 * requests pair, or (--all) of every router on every shipped corpus whose
 * features it supports (bench/measure/verify.h does the work; this file prints).
 * Exit 0 all agree, 1 any disagreement or refusal, 2 usage or input error.
 */
#include "cli.h"
#include "router.h"
#include "shipped.h"
#include "table.h"
#include "verify.h"
#include "verify_every.h"

#include <cjson/cJSON.h>
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
    {.name = "--router",
     .type = CLI_STRING,
     .metavar = "SPEC",
     .offset = V(router),
     .help = "the router: a name (routebench list), or NAME@LIB for router NAME of plugin "
             "library LIB"},
    {.name = "--routes",
     .type = CLI_STRING,
     .metavar = "FILE",
     .offset = V(routes),
     .requires = "--router --requests",
     .help = "the route table ..."},
    {.name = "--requests",
     .type = CLI_STRING,
     .metavar = "FILE",
     .offset = V(requests),
     .requires = "--router --routes",
     .help = "... and the request table with EXPECTED answers"},
    {.name = "--corpus",
     .type = CLI_STRING,
     .metavar = "NAME",
     .offset = V(corpus),
     .excludes = "--routes --requests",
     .requires = "--router",
     .help = "a shipped corpus instead of the two files (routebench list)"},
    {.name = "--all",
     .type = CLI_FLAG,
     .offset = V(all),
     .excludes = "--router --routes --requests --corpus",
     .help = "every router (plugin routers too) on every shipped corpus, skipping pairs whose "
             "features the router lacks"},
    {.name = "--router-lib",
     .type = CLI_CALL,
     .metavar = "LIB",
     .offset = V(plugins),
     .call = cli_take_router_lib,
     .flags = CLI_REPEAT,
     .help = "load a plugin library first (repeatable)"},
    {.name = "--json",
     .type = CLI_FLAG,
     .offset = V(json),
     .help = "the results as JSON on stdout (schema routebench-verify, docs/measurement.md)"},
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

/* ---- text ------------------------------------------------------------------------------------ */

static void print_examples(const rb_verify_report *rep, const rb_request_table *reqs)
{
    for (size_t k = 0; k < rep->nexamples; k++) {
        char line[800];
        rb_verify_example_format(&rep->examples[k], reqs, line, sizeof line);
        printf("  %s\n", line);
    }
}

static void print_run(const rb_verify_run *r)
{
    if (r->absent) {
        printf("%-8s %-10s skipped: not in $ROUTEBENCH_DATA (%s)\n", r->router, r->corpus,
               r->routes_path);
        return;
    }
    if (r->skipped) {
        printf("%-8s %-10s skipped: the corpus uses features the router lacks\n", r->router,
               r->corpus);
        return;
    }
    if (r->status < 0) {
        cli_error("verify", "%s", r->err.message);
        return;
    }
    const rb_verify_report *rep = &r->rep;
    printf("%-8s %s: %zu/%zu agree with EXPECTED, %zu/%zu with linear", r->router, r->requests_path,
           rep->agree_expected, rep->requests, rep->agree_linear, rep->requests);
    if (rep->refused) printf("; %zu/%zu routes refused", rep->refused, rep->routes);
    printf("\n");
    if (rep->refused) printf("  first refusal: %s\n", rep->first_refusal.message);
    print_examples(rep, r->requests);
}

/* ---- JSON ------------------------------------------------------------------------------------ */

static cJSON *run_json(const rb_verify_run *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "router", r->router);
    if (r->corpus)
        cJSON_AddStringToObject(o, "corpus", r->corpus);
    else
        cJSON_AddNullToObject(o, "corpus");
    cJSON_AddStringToObject(o, "routes", r->routes_path);
    cJSON_AddStringToObject(o, "requests", r->requests_path);
    cJSON_AddBoolToObject(o, "peer", r->peer);
    cJSON_AddBoolToObject(o, "skipped", r->skipped);
    if (r->absent) cJSON_AddBoolToObject(o, "absent", true);
    if (r->skipped) return o;
    if (r->status < 0) {
        cJSON_AddStringToObject(o, "error", r->err.message);
        cJSON_AddBoolToObject(o, "ok", false);
        return o;
    }
    const rb_verify_report *rep = &r->rep;
    cJSON_AddNumberToObject(o, "route_count", (double)rep->routes);
    cJSON_AddNumberToObject(o, "refused", (double)rep->refused);
    if (rep->refused) cJSON_AddStringToObject(o, "first_refusal", rep->first_refusal.message);
    cJSON_AddNumberToObject(o, "request_count", (double)rep->requests);
    cJSON_AddNumberToObject(o, "agree_expected", (double)rep->agree_expected);
    cJSON_AddNumberToObject(o, "agree_linear", (double)rep->agree_linear);
    cJSON *ex = cJSON_AddArrayToObject(o, "disagreements");
    for (size_t k = 0; k < rep->nexamples; k++) {
        const rb_verify_example *x = &rep->examples[k];
        const rb_request *q = &r->requests->reqs[x->request];
        char got[300], want[300];
        rb_match_format(&x->got, got, sizeof got);
        rb_match_format(&x->want, want, sizeof want);
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "line", (double)q->line);
        cJSON_AddStringToObject(e, "method", rb_method_name(q->method));
        char *path = malloc(q->len + 1);
        if (path) {
            memcpy(path, rb_request_path(r->requests, x->request), q->len);
            path[q->len] = '\0';
            cJSON_AddStringToObject(e, "path", path);
            free(path);
        }
        cJSON_AddNumberToObject(e, "expected", q->expected);
        cJSON_AddStringToObject(e, "got", got);
        cJSON_AddStringToObject(e, "linear", want);
        cJSON_AddItemToArray(ex, e);
    }
    cJSON_AddBoolToObject(o, "ok", rb_verify_ok(rep));
    return o;
}

static int print_json(cJSON *runs, const rb_verify_totals *t)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "schema", "routebench-verify");
    cJSON_AddNumberToObject(o, "schema_version", 1);
    cJSON_AddItemToObject(o, "runs", runs);
    cJSON *tot = cJSON_AddObjectToObject(o, "totals");
    cJSON_AddNumberToObject(tot, "runs", (double)t->runs);
    cJSON_AddNumberToObject(tot, "failed", (double)t->failed);
    cJSON_AddNumberToObject(tot, "skipped", (double)t->skipped);
    cJSON_AddNumberToObject(tot, "peers_disagreeing", (double)t->peers_disagreeing);
    cJSON_AddBoolToObject(o, "ok", t->failed == 0);
    char *s = cJSON_Print(o);
    cJSON_Delete(o);
    if (!s) return cli_system_error("verify", "out of memory");
    puts(s);
    free(s);
    return CLI_OK;
}

/* ---- the command ----------------------------------------------------------------------------- */

typedef struct collector {
    bool json;
    cJSON *runs;
    bool input_error; /* a run failed with an error, not a disagreement */
} collector;

static void each(void *ctx, const rb_verify_run *r)
{
    collector *c = ctx;
    if (!r->skipped && r->status < 0) c->input_error = true;
    if (c->json)
        cJSON_AddItemToArray(c->runs, run_json(r));
    else
        print_run(r);
}

static int verify_all(const verify_options *o, collector *c)
{
    rb_verify_totals tot;
    rb_error err;
    int rc = rb_verify_every(&o->plugins, each, c, &tot, &err);
    if (rc == RB_ENOMEM) return cli_system_error("verify", "out of memory");
    if (rc < 0) return cli_error("verify", "%s", err.message);
    if (c->json) {
        int s = print_json(c->runs, &tot);
        c->runs = NULL;
        if (s != CLI_OK) return s;
    } else {
        printf("verify --all: %zu runs, %zu failed, %zu skipped", tot.runs, tot.failed,
               tot.skipped);
        if (tot.peers_disagreeing)
            printf(", %zu peer runs disagreeing (reported above, not failures)",
                   tot.peers_disagreeing);
        printf("\n");
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
    if (r.status < 0 && !c->json) {
        status = cli_error("verify", "%s", r.err.message);
    } else {
        rb_verify_totals tot = {1, r.status < 0 || !rb_verify_ok(&r.rep), 0, 0};
        each(c, &r);
        status = r.status < 0 ? CLI_USAGE : tot.failed ? CLI_FAILED : CLI_OK;
        if (c->json && print_json(c->runs, &tot) != CLI_OK) status = CLI_USAGE;
        if (c->json) c->runs = NULL;
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
        collector c = {o.json, o.json ? cJSON_CreateArray() : NULL, false};
        status = o.all ? verify_all(&o, &c) : verify_one(&o, &c);
        cJSON_Delete(c.runs);
    }
    rb_plugins_close(&o.plugins);
    return status;
}
