/*
 * cmd_verify.c — `routebench verify`: conformance of a router on a routes +
 * requests pair, or (--all) of every router on every shipped corpus whose
 * features it supports.  Exit 0 all agree, 1 any disagreement or refusal,
 * 2 usage or input error.
 */
#include "cli.h"
#include "router.h"
#include "shipped.h"
#include "table.h"
#include "verify.h"

#include <stdio.h>
#include <string.h>

static const char usage_text[] =
    "usage: routebench verify --router SPEC --routes FILE --requests FILE\n"
    "       routebench verify --router SPEC --corpus SHIPPED_NAME\n"
    "       routebench verify --all\n"
    "  options: --router-lib LIB (repeatable) loads a plugin library first\n"
    "\n"
    "SPEC is a router name, or NAME@LIB for router NAME of plugin library LIB.\n"
    "Looks up every request with the router and checks the answer twice: against\n"
    "EXPECTED in the requests file, and against the reference router `linear`\n"
    "(same route id, every capture span, the 405 allowed-methods mask).\n"
    "Prints N/N agree and the first disagreements.  --all runs every router on\n"
    "every shipped corpus (plugin routers too), skipping pairs whose features the\n"
    "router lacks.  A peer's disagreements (an adapter around a third-party router,\n"
    "e.g. r3) are printed but do not fail --all: peers are measured, not held to\n"
    "our semantics.\n"
    "\n"
    "exit status: 0 all agree, 1 a disagreement or refused route, 2 usage/input error\n";

static void print_examples(const rb_verify_report *rep, const rb_request_table *reqs)
{
    for (size_t k = 0; k < rep->nexamples; k++) {
        const rb_verify_example *x = &rep->examples[k];
        const rb_request *q = &reqs->reqs[x->request];
        char got[300], want[300];
        rb_match_format(&x->got, got, sizeof got);
        rb_match_format(&x->want, want, sizeof want);
        printf("  line %zu: %s %.*s expected %d, got %s; linear says %s\n", q->line,
               rb_method_name(q->method), (int)(q->len > 120 ? 120 : q->len),
               rb_request_path(reqs, x->request), (int)q->expected, got, want);
    }
}

static bool report_ok(const rb_verify_report *rep)
{
    return rep->refused == 0 && rep->agree_expected == rep->requests &&
           rep->agree_linear == rep->requests;
}

static int verify_files(const rb_router_ops *ops, const char *router, const char *routes_path,
                        const char *requests_path, bool quiet)
{
    rb_route_table routes;
    rb_request_table reqs;
    rb_error err;
    if (rb_route_table_read(routes_path, &routes, &err) < 0) {
        fprintf(stderr, "routebench verify: %s\n", err.message);
        return CLI_USAGE;
    }
    if (rb_request_table_read(requests_path, &reqs, &err) < 0) {
        fprintf(stderr, "routebench verify: %s\n", err.message);
        rb_route_table_free(&routes);
        return CLI_USAGE;
    }
    rb_verify_report rep;
    int rc = rb_verify(ops, &routes, routes_path, &reqs, &rep, &err);
    int status = CLI_OK;
    if (rc < 0) {
        fprintf(stderr, "routebench verify: %s\n", err.message);
        status = CLI_USAGE;
    } else {
        bool ok = report_ok(&rep);
        if (!quiet || !ok) {
            printf("%-8s %s: %zu/%zu agree with EXPECTED, %zu/%zu with linear", router,
                   requests_path, rep.agree_expected, rep.requests, rep.agree_linear, rep.requests);
            if (rep.refused) printf("; %zu/%zu routes refused", rep.refused, rep.routes);
            printf("\n");
            if (rep.refused) printf("  first refusal: %s\n", rep.first_refusal.message);
            print_examples(&rep, &reqs);
        }
        status = ok ? CLI_OK : CLI_FAILED;
    }
    rb_route_table_free(&routes);
    rb_request_table_free(&reqs);
    return status;
}

/* The i-th router of --all: built-ins, then plugin routers (NAME@LIB). */
static const rb_router_ops *all_router(const rb_plugins *p, size_t i, char *label, size_t cap)
{
    const rb_router_ops *ops;
    if (i < rb_registry_count()) {
        ops = rb_registry_at(i);
        snprintf(label, cap, "%s", rb_ops_name(ops));
    } else {
        size_t k = i - rb_registry_count();
        ops = rb_plugins_ops(p, k);
        snprintf(label, cap, "%s@%s", rb_ops_name(ops), rb_plugins_lib(p, k));
    }
    return ops;
}

static int verify_all(const rb_plugins *plugins)
{
    int status = CLI_OK;
    size_t runs = 0, skipped = 0, failed = 0, peers_disagreeing = 0;
    size_t nrouters = rb_registry_count() + rb_plugins_count(plugins);
    for (size_t c = 0; c < rb_shipped_count(); c++) {
        char rpath[4096], qpath[4096];
        const char *name = rb_shipped_name(c);
        if (!rb_shipped_path(name, "routes", rpath, sizeof rpath) ||
            !rb_shipped_path(name, "requests", qpath, sizeof qpath)) {
            fprintf(stderr, "routebench verify: data path too long\n");
            return CLI_USAGE;
        }
        rb_route_table routes;
        rb_error err;
        if (rb_route_table_read(rpath, &routes, &err) < 0) {
            fprintf(stderr, "routebench verify: %s\n", err.message);
            return CLI_USAGE;
        }
        unsigned need = rb_route_table_features(&routes);
        rb_route_table_free(&routes);
        for (size_t i = 0; i < nrouters; i++) {
            char label[512];
            const rb_router_ops *ops = all_router(plugins, i, label, sizeof label);
            if (need & ~rb_ops_features(ops)) {
                printf("%-8s %-10s skipped: the corpus uses features the router lacks\n", label,
                       name);
                skipped++;
                continue;
            }
            int s = verify_files(ops, label, rpath, qpath, false);
            runs++;
            if (s == CLI_FAILED && (rb_ops_features(ops) & RB_FEAT_PEER)) {
                peers_disagreeing++;
                continue;
            }
            if (s != CLI_OK) failed++;
            if (s > status) status = s;
        }
    }
    printf("verify --all: %zu runs, %zu failed, %zu skipped", runs, failed, skipped);
    if (peers_disagreeing)
        printf(", %zu peer runs disagreeing (reported above, not failures)", peers_disagreeing);
    printf("\n");
    return status;
}

static int verify_main(int argc, char **argv, rb_plugins *plugins)
{
    const char *router = NULL, *routes = NULL, *requests = NULL, *corpus = NULL;
    bool all = false;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if (cli_is_help(argv[i])) {
            fputs(usage_text, stdout);
            return CLI_OK;
        } else if (cli_opt(argc, argv, &i, "--router", &v)) {
            router = v;
        } else if (cli_opt(argc, argv, &i, "--routes", &v)) {
            routes = v;
        } else if (cli_opt(argc, argv, &i, "--requests", &v)) {
            requests = v;
        } else if (cli_opt(argc, argv, &i, "--corpus", &v)) {
            corpus = v;
        } else if (cli_opt(argc, argv, &i, "--router-lib", &v)) {
            if (v && !cli_router_lib(plugins, "verify", v)) return CLI_USAGE;
        } else if (cli_flag(argv, i, "--all")) {
            all = true;
            continue;
        } else {
            return cli_unknown("verify", argv[i]);
        }
        if (!v) return CLI_USAGE;
    }
    if (all) return verify_all(plugins);
    char rpath[4096], qpath[4096];
    if (corpus) {
        if (!rb_shipped_path(corpus, "routes", rpath, sizeof rpath) ||
            !rb_shipped_path(corpus, "requests", qpath, sizeof qpath)) {
            fprintf(stderr, "routebench verify: no shipped corpus '%s' (routebench list)\n",
                    corpus);
            return CLI_USAGE;
        }
        routes = rpath;
        requests = qpath;
    }
    if (!router || !routes || !requests) {
        fprintf(stderr,
                "routebench verify: needs --router and --routes/--requests (or "
                "--corpus), or --all\n\n%s",
                usage_text);
        return CLI_USAGE;
    }
    const rb_router_ops *ops = cli_router(plugins, "verify", router);
    if (!ops) return CLI_USAGE;
    return verify_files(ops, router, routes, requests, false);
}

int cmd_verify(int argc, char **argv)
{
    rb_plugins plugins;
    rb_plugins_init(&plugins);
    int status = verify_main(argc, argv, &plugins);
    rb_plugins_close(&plugins);
    return status;
}
