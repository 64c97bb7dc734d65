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
    "usage: routebench verify --router NAME --routes FILE --requests FILE\n"
    "       routebench verify --router NAME --corpus SHIPPED_NAME\n"
    "       routebench verify --all\n"
    "\n"
    "Looks up every request with the router and checks the answer twice: against\n"
    "EXPECTED in the requests file, and against the reference router `linear`\n"
    "(same route id, every capture span, the 405 allowed-methods mask).\n"
    "Prints N/N agree and the first disagreements.  --all runs every router on\n"
    "every shipped corpus, skipping pairs whose features the router lacks.\n"
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

static int verify_files(const char *router, const char *routes_path, const char *requests_path,
                        bool quiet)
{
    const rb_router_ops *ops = rb_registry_find(router);
    if (!ops) {
        fprintf(stderr, "routebench verify: no router named '%s' (routebench list)\n", router);
        return CLI_USAGE;
    }
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
                   requests_path, rep.agree_expected, rep.requests, rep.agree_linear,
                   rep.requests);
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

static int verify_all(void)
{
    int status = CLI_OK;
    size_t runs = 0, skipped = 0, failed = 0;
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
        for (size_t i = 0; i < rb_registry_count(); i++) {
            const rb_router_ops *ops = rb_registry_at(i);
            if (need & ~rb_ops_features(ops)) {
                printf("%-8s %-10s skipped: the corpus uses features the router lacks\n",
                       rb_ops_name(ops), name);
                skipped++;
                continue;
            }
            int s = verify_files(rb_ops_name(ops), rpath, qpath, false);
            runs++;
            if (s != CLI_OK) failed++;
            if (s > status) status = s;
        }
    }
    printf("verify --all: %zu runs, %zu failed, %zu skipped\n", runs, failed, skipped);
    return status;
}

int cmd_verify(int argc, char **argv)
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
        } else if (cli_flag(argv, i, "--all")) {
            all = true;
            continue;
        } else {
            return cli_unknown("verify", argv[i]);
        }
        if (!v) return CLI_USAGE;
    }
    if (all) return verify_all();
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
        fprintf(stderr, "routebench verify: needs --router and --routes/--requests (or "
                        "--corpus), or --all\n\n%s",
                usage_text);
        return CLI_USAGE;
    }
    return verify_files(router, routes, requests, false);
}
