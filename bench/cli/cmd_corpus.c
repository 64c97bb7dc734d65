/*
 * cmd_corpus.c — `routebench corpus`: generate corpora and request tables,
 * check route tables for duplicates and shadowed routes, import OpenAPI
 * documents.  The work is done by the corpus library (generate.h,
 * reqgen.h, check.h, openapi.h); this file parses arguments and prints.
 */
#include "check.h"
#include "cli.h"
#include "generate.h"
#include "openapi.h"
#include "reqgen.h"
#include "table.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char corpus_usage[] =
    "usage: routebench corpus gen      --routes N --seed S --shape SHAPE --out PREFIX [...]\n"
    "       routebench corpus requests FILE.routes --out FILE.requests [--count C] [--miss M] "
    "[...]\n"
    "       routebench corpus check    FILE.routes [--min-unique K] [--json]\n"
    "       routebench corpus import   --openapi FILE.json [--out FILE.routes]\n"
    "\n"
    "gen writes a route table of N routes with distinct (method, shape) and a\n"
    "request table for it; requests makes a request table for any route table;\n"
    "check reports duplicate, shadowed and repeated-shape routes; import turns an\n"
    "OpenAPI 3 document into a route table.  routebench corpus COMMAND --help for more.\n";

static const char gen_usage[] =
    "usage: routebench corpus gen --routes N --seed S --shape SHAPE --out PREFIX\n"
    "                             [--no-conflicts] [--requests C] [--miss M]\n"
    "                             [--dist uniform|zipf]\n"
    "\n"
    "Writes PREFIX.routes (N routes, 1..1000000, every (method, shape) distinct) and\n"
    "PREFIX.requests (C requests, default 4096, as `corpus requests` makes them with\n"
    "the same seed).  The same arguments give byte-identical files on every machine.\n"
    "\n"
    "shapes:\n"
    "  static    no parameters\n"
    "  params    every route has a parameter\n"
    "  mixed     a REST API: namespaces, collections, items, sub-resources, actions,\n"
    "            views beside items (/users/me beside /users/:user_id); GET dominant\n"
    "  catchall  mixed plus catch-alls (*path), a few with method '*'\n"
    "  glob      mixed plus globs (*.css, report-*.csv, img-??.png, [a-f]*.json,\n"
    "            prefix-*) and '**'\n"
    "--no-conflicts  no static and param (or other) siblings at one position, for\n"
    "                routers such as httprouter 1.x and r3\n"
    "--miss M        share of misses, 0..1 (default 0.1)\n"
    "\n"
    "exit status: 0 written, 2 usage error or the arguments cannot hold N routes\n";

static const char requests_usage[] =
    "usage: routebench corpus requests FILE.routes --out FILE.requests [--count C]\n"
    "                                  [--miss M] [--seed S] [--dist uniform|zipf]\n"
    "                                  [--wrong-method W]\n"
    "\n"
    "Writes C requests (default 4096) for any route table.  Hits fill a route's\n"
    "params and wildcards with random values no static word equals; a share W of\n"
    "them (default 0.05) use another method (405s); a share M (default 0.1) are\n"
    "misses: paths mutated until no route matches.  --dist zipf picks routes with\n"
    "Zipf popularity (weight 1/k) instead of uniformly.  EXPECTED is linear's\n"
    "answer, never the generator's intent; hits that a higher-priority route takes\n"
    "are counted and reported.\n"
    "\n"
    "exit status: 0 written, 2 usage or input error\n";

static const char check_usage[] =
    "usage: routebench corpus check FILE.routes [--min-unique K] [--json]\n"
    "                               [--samples N] [--seed S]\n"
    "\n"
    "Reports: routes; exact duplicate lines; shape duplicates (same method and shape,\n"
    "with both line numbers); shadowed routes (can never win: every path they match\n"
    "is taken by a higher-priority route; exact for static, param, catch-all, '**'\n"
    "and '*' segments, other globs are sampled with N paths, default 64, and may be\n"
    "'possibly shadowed'); distinct routes (method, shape), shapes and skeletons\n"
    "(static words erased too); depth and fan-out histograms; the most routes behind\n"
    "one parent prefix; the fingerprint (XXH3) of the canonical route list.\n"
    "--min-unique K  fail unless there are at least K distinct (method, shape)\n"
    "--json          the report as JSON on stdout\n"
    "\n"
    "exit status: 0 clean, 1 duplicates or shadowed routes (or fewer than K\n"
    "unique), 2 input error\n";

static const char import_usage[] =
    "usage: routebench corpus import --openapi FILE.json [--out FILE.routes]\n"
    "\n"
    "Writes one route per operation of an OpenAPI 3 document (JSON): its paths in\n"
    "document order, each with its operations in document order ({param} kept).\n"
    "Without --out the routes go to stdout.  Templates inside a segment\n"
    "({name}.json) become globs; OpenAPI 3.2 'query' operations are skipped and\n"
    "counted; unknown keys and malformed documents are errors naming where.\n"
    "\n"
    "exit status: 0 written, 2 usage or input error\n";

/* ---- shared -------------------------------------------------------------------- */

static size_t line_of(const rb_route_table *t, uint32_t r)
{
    return t->routes[r].line ? t->routes[r].line : (size_t)r + 1;
}

static bool parse_ratio(const char *opt, const char *v, uint32_t *ppm)
{
    double x;
    if (!cli_parse_double(opt, v, 0.0, 1.0, &x)) return false;
    *ppm = (uint32_t)(x * 1e6 + 0.5);
    return true;
}

static bool parse_dist(const char *v, int *dist)
{
    *dist = rb_req_dist_parse(v);
    if (*dist >= 0) return true;
    fprintf(stderr, "routebench corpus: --dist must be uniform or zipf, got '%s'\n", v);
    return false;
}

/* Generate and write requests; prints a summary.  Returns a CLI status. */
static int write_requests(const char *cmd, const rb_route_table *routes,
                          const rb_reqgen_config *cfg, const char *out)
{
    rb_request_table reqs;
    rb_reqgen_report rep;
    rb_error err;
    if (rb_requests_generate(routes, cfg, &reqs, &rep, &err) < 0) {
        fprintf(stderr, "routebench corpus %s: %s\n", cmd, err.message);
        return CLI_USAGE;
    }
    int status = CLI_OK;
    if (rb_request_table_write(out, &reqs, &err) < 0) {
        fprintf(stderr, "routebench corpus %s: %s\n", cmd, err.message);
        status = CLI_USAGE;
    } else {
        printf("%zu requests (seed %llu, %s) -> %s\n", rep.requests, (unsigned long long)cfg->seed,
               cfg->dist == RB_DIST_ZIPF ? "zipf" : "uniform", out);
        printf("  generated: %zu hits, %zu with another method, %zu misses\n", rep.hits,
               rep.wrong_method, rep.misses);
        printf("  EXPECTED (from linear): %zu found, %zu not found (-1), %zu method not allowed "
               "(-2)\n",
               rep.expect_found, rep.expect_not_found, rep.expect_not_allowed);
        printf("  hits taken by a higher-priority route: %zu\n", rep.hits_taken);
        if (rep.misses_matched)
            printf("  misses still matched by a route after 8 mutations: %zu\n",
                   rep.misses_matched);
        printf("  fingerprint requests xxh3:%016llx\n",
               (unsigned long long)rb_request_table_fingerprint(&reqs));
    }
    rb_request_table_free(&reqs);
    return status;
}

/* ---- gen ------------------------------------------------------------------------- */

static int corpus_gen(int argc, char **argv)
{
    rb_gen_config g = {0};
    rb_reqgen_config q = {RB_REQGEN_DEFAULT_COUNT, 100000, 50000, 1, RB_DIST_UNIFORM};
    const char *out = NULL;
    bool have_routes = false, have_seed = false, have_shape = false;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        unsigned long long n;
        if (cli_is_help(argv[i])) {
            fputs(gen_usage, stdout);
            return CLI_OK;
        } else if (cli_flag(argv, i, "--no-conflicts")) {
            g.no_conflicts = true;
            continue;
        } else if (cli_opt(argc, argv, &i, "--routes", &v)) {
            if (!v || !cli_parse_u64("--routes", v, 1, RB_GEN_MAX_ROUTES, &n)) return CLI_USAGE;
            g.routes = (size_t)n;
            have_routes = true;
        } else if (cli_opt(argc, argv, &i, "--seed", &v)) {
            if (!v || !cli_parse_u64("--seed", v, 0, UINT64_MAX, &n)) return CLI_USAGE;
            g.seed = n;
            have_seed = true;
        } else if (cli_opt(argc, argv, &i, "--shape", &v)) {
            if (!v) return CLI_USAGE;
            g.shape = rb_gen_shape_parse(v);
            if (g.shape < 0) {
                fprintf(stderr,
                        "routebench corpus gen: --shape must be static, params, mixed, "
                        "catchall or glob, got '%s'\n",
                        v);
                return CLI_USAGE;
            }
            have_shape = true;
        } else if (cli_opt(argc, argv, &i, "--out", &v)) {
            if (!v) return CLI_USAGE;
            out = v;
        } else if (cli_opt(argc, argv, &i, "--requests", &v)) {
            if (!v || !cli_parse_u64("--requests", v, 1, RB_REQGEN_MAX_COUNT, &n)) return CLI_USAGE;
            q.count = (size_t)n;
        } else if (cli_opt(argc, argv, &i, "--miss", &v)) {
            if (!v || !parse_ratio("--miss", v, &q.miss_ppm)) return CLI_USAGE;
        } else if (cli_opt(argc, argv, &i, "--dist", &v)) {
            if (!v || !parse_dist(v, &q.dist)) return CLI_USAGE;
        } else {
            return cli_unknown("corpus gen", argv[i]);
        }
    }
    if (!have_routes || !have_seed || !have_shape || !out) {
        fprintf(stderr, "routebench corpus gen: needs --routes, --seed, --shape and --out\n\n%s",
                gen_usage);
        return CLI_USAGE;
    }
    q.seed = g.seed;
    char rpath[4096], qpath[4096];
    if ((size_t)snprintf(rpath, sizeof rpath, "%s.routes", out) >= sizeof rpath ||
        (size_t)snprintf(qpath, sizeof qpath, "%s.requests", out) >= sizeof qpath) {
        fprintf(stderr, "routebench corpus gen: --out is too long\n");
        return CLI_USAGE;
    }
    rb_route_table routes;
    rb_error err;
    if (rb_corpus_generate(&g, &routes, &err) < 0) {
        fprintf(stderr, "routebench corpus gen: %s\n", err.message);
        return CLI_USAGE;
    }
    uint64_t fp = rb_route_table_fingerprint(&routes);
    char header[512];
    snprintf(header, sizeof header,
             "routebench corpus gen --routes %zu --seed %llu --shape %s%s\n"
             "%zu routes, every (method, shape) distinct; fingerprint xxh3:%016llx",
             g.routes, (unsigned long long)g.seed, rb_gen_shape_name(g.shape),
             g.no_conflicts ? " --no-conflicts" : "", routes.count, (unsigned long long)fp);
    int status = CLI_OK;
    if (rb_route_table_write(rpath, &routes, header, &err) < 0) {
        fprintf(stderr, "routebench corpus gen: %s\n", err.message);
        status = CLI_USAGE;
    } else {
        printf("%zu routes (shape %s%s, seed %llu) -> %s\n", routes.count,
               rb_gen_shape_name(g.shape), g.no_conflicts ? ", no conflicts" : "",
               (unsigned long long)g.seed, rpath);
        printf("  fingerprint routes xxh3:%016llx\n", (unsigned long long)fp);
        status = write_requests("gen", &routes, &q, qpath);
    }
    rb_route_table_free(&routes);
    return status;
}

/* ---- requests ---------------------------------------------------------------------- */

static int corpus_requests(int argc, char **argv)
{
    rb_reqgen_config q = {RB_REQGEN_DEFAULT_COUNT, 100000, 50000, 1, RB_DIST_UNIFORM};
    const char *in = NULL, *out = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        unsigned long long n;
        if (cli_is_help(argv[i])) {
            fputs(requests_usage, stdout);
            return CLI_OK;
        } else if (cli_opt(argc, argv, &i, "--count", &v)) {
            if (!v || !cli_parse_u64("--count", v, 1, RB_REQGEN_MAX_COUNT, &n)) return CLI_USAGE;
            q.count = (size_t)n;
        } else if (cli_opt(argc, argv, &i, "--seed", &v)) {
            if (!v || !cli_parse_u64("--seed", v, 0, UINT64_MAX, &n)) return CLI_USAGE;
            q.seed = n;
        } else if (cli_opt(argc, argv, &i, "--miss", &v)) {
            if (!v || !parse_ratio("--miss", v, &q.miss_ppm)) return CLI_USAGE;
        } else if (cli_opt(argc, argv, &i, "--wrong-method", &v)) {
            if (!v || !parse_ratio("--wrong-method", v, &q.wrong_method_ppm)) return CLI_USAGE;
        } else if (cli_opt(argc, argv, &i, "--dist", &v)) {
            if (!v || !parse_dist(v, &q.dist)) return CLI_USAGE;
        } else if (cli_opt(argc, argv, &i, "--out", &v)) {
            if (!v) return CLI_USAGE;
            out = v;
        } else if (argv[i][0] != '-' && !in) {
            in = argv[i];
        } else {
            return cli_unknown("corpus requests", argv[i]);
        }
    }
    if (!in || !out) {
        fprintf(stderr, "routebench corpus requests: needs FILE.routes and --out\n\n%s",
                requests_usage);
        return CLI_USAGE;
    }
    rb_route_table routes;
    rb_error err;
    if (rb_route_table_read(in, &routes, &err) < 0) {
        fprintf(stderr, "routebench corpus requests: %s\n", err.message);
        return CLI_USAGE;
    }
    printf("%zu routes from %s (fingerprint xxh3:%016llx)\n", routes.count, in,
           (unsigned long long)rb_route_table_fingerprint(&routes));
    int status = write_requests("requests", &routes, &q, out);
    rb_route_table_free(&routes);
    return status;
}

/* ---- check --------------------------------------------------------------------------- */

#define SHOW 20

static void print_pairs(const rb_route_table *t, const char *what, const rb_check_pair *p, size_t n)
{
    for (size_t i = 0; i < n && i < SHOW; i++) {
        const rb_route_entry *e = &t->routes[p[i].route];
        printf("  line %zu %s %.*s %s line %zu\n", line_of(t, p[i].route),
               rb_method_name(e->method), (int)(e->len > 100 ? 100 : e->len),
               rb_route_pattern(t, p[i].route), what, line_of(t, p[i].earlier));
    }
    if (n > SHOW) printf("  ... and %zu more (--json lists all)\n", n - SHOW);
}

static void print_check(const char *path, const rb_route_table *t, const rb_check_report *r)
{
    printf("%s\n", path);
    printf("  routes              %zu\n", r->routes);
    printf("  exact duplicates    %zu\n", r->exact_duplicates);
    print_pairs(t, "repeats", r->exact, r->exact_duplicates);
    printf("  shape duplicates    %zu   (same method and shape, exact ones included)\n",
           r->shape_duplicates);
    print_pairs(t, "has the method and shape of", r->shape, r->shape_duplicates);
    printf("  shadowed            %zu", r->shadowed);
    if (r->possibly_shadowed) printf(" (+ %zu possibly, from sampling)", r->possibly_shadowed);
    printf("\n");
    size_t ns = r->shadowed + r->possibly_shadowed;
    for (size_t i = 0; i < ns && i < SHOW; i++) {
        const rb_check_shadow *s = &r->shadows[i];
        const rb_route_entry *e = &t->routes[s->route];
        printf("  line %zu %s %.*s %s", line_of(t, s->route), rb_method_name(e->method),
               (int)(e->len > 100 ? 100 : e->len), rb_route_pattern(t, s->route),
               s->possible ? "possibly shadowed" : "shadowed");
        if (s->by != RB_ST_NONE) {
            const rb_route_entry *b = &t->routes[s->by];
            printf(", e.g. by line %zu %s %.*s", line_of(t, s->by), rb_method_name(b->method),
                   (int)(b->len > 100 ? 100 : b->len), rb_route_pattern(t, s->by));
        }
        printf("\n");
    }
    if (ns > SHOW) printf("  ... and %zu more (--json lists all)\n", ns - SHOW);
    printf("  distinct routes     %zu   (method, shape)\n", r->distinct_routes);
    printf("  distinct shapes     %zu\n", r->distinct_shapes);
    printf("  distinct skeletons  %zu   (static words erased too)\n", r->distinct_skeletons);
    printf("  depth               %zu..%zu:", r->min_depth, r->max_depth);
    for (int d = 1; d < RB_CHECK_DEPTHS; d++)
        if (r->depth[d]) printf(" %d%s:%zu", d, d == RB_CHECK_DEPTHS - 1 ? "+" : "", r->depth[d]);
    printf("   (routes by segments)\n");
    printf("  fan-out            ");
    for (int b = 0; b < RB_CHECK_FANOUT_BUCKETS; b++)
        if (r->fanout[b]) printf(" %s:%zu", rb_check_fanout_bucket(b), r->fanout[b]);
    printf("   (prefixes by children; max %zu at %s)\n", r->max_fanout, r->max_fanout_prefix);
    printf("  most behind one prefix %zu at %s\n", r->max_behind, r->max_behind_prefix);
    if (r->sampled)
        printf("  shadowing sampled for %zu routes (globs, or a search over its state cap)\n",
               r->sampled);
    if (r->over_budget)
        printf("  work budget: %zu routes possibly shadowed, their search cut short\n",
               r->over_budget);
    printf("  fingerprint         xxh3:%016llx\n", (unsigned long long)r->fingerprint);
}

static cJSON *json_pairs(const rb_route_table *t, const rb_check_pair *p, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "line", (double)line_of(t, p[i].route));
        cJSON_AddNumberToObject(o, "earlier_line", (double)line_of(t, p[i].earlier));
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static int print_check_json(const char *path, const rb_route_table *t, const rb_check_report *r,
                            size_t min_unique, bool ok)
{
    cJSON *o = cJSON_CreateObject();
    char fp[32];
    snprintf(fp, sizeof fp, "xxh3:%016llx", (unsigned long long)r->fingerprint);
    cJSON_AddStringToObject(o, "file", path);
    cJSON_AddNumberToObject(o, "routes", (double)r->routes);
    cJSON_AddNumberToObject(o, "exact_duplicates", (double)r->exact_duplicates);
    cJSON_AddItemToObject(o, "exact", json_pairs(t, r->exact, r->exact_duplicates));
    cJSON_AddNumberToObject(o, "shape_duplicates", (double)r->shape_duplicates);
    cJSON_AddItemToObject(o, "shape", json_pairs(t, r->shape, r->shape_duplicates));
    cJSON_AddNumberToObject(o, "shadowed", (double)r->shadowed);
    cJSON_AddNumberToObject(o, "possibly_shadowed", (double)r->possibly_shadowed);
    cJSON *sh = cJSON_AddArrayToObject(o, "shadows");
    for (size_t i = 0; sh && i < r->shadowed + r->possibly_shadowed; i++) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddNumberToObject(x, "line", (double)line_of(t, r->shadows[i].route));
        if (r->shadows[i].by != RB_ST_NONE)
            cJSON_AddNumberToObject(x, "by_line", (double)line_of(t, r->shadows[i].by));
        cJSON_AddBoolToObject(x, "possible", r->shadows[i].possible);
        cJSON_AddItemToArray(sh, x);
    }
    cJSON_AddNumberToObject(o, "sampled", (double)r->sampled);
    cJSON_AddNumberToObject(o, "over_budget", (double)r->over_budget);
    cJSON_AddNumberToObject(o, "distinct_routes", (double)r->distinct_routes);
    cJSON_AddNumberToObject(o, "distinct_shapes", (double)r->distinct_shapes);
    cJSON_AddNumberToObject(o, "distinct_skeletons", (double)r->distinct_skeletons);
    cJSON_AddNumberToObject(o, "min_depth", (double)r->min_depth);
    cJSON_AddNumberToObject(o, "max_depth", (double)r->max_depth);
    cJSON *dh = cJSON_AddObjectToObject(o, "depth");
    for (int d = 1; dh && d < RB_CHECK_DEPTHS; d++) {
        char k[8];
        snprintf(k, sizeof k, "%d%s", d, d == RB_CHECK_DEPTHS - 1 ? "+" : "");
        if (r->depth[d]) cJSON_AddNumberToObject(dh, k, (double)r->depth[d]);
    }
    cJSON *fh = cJSON_AddObjectToObject(o, "fanout");
    for (int b = 0; fh && b < RB_CHECK_FANOUT_BUCKETS; b++)
        if (r->fanout[b])
            cJSON_AddNumberToObject(fh, rb_check_fanout_bucket(b), (double)r->fanout[b]);
    cJSON_AddNumberToObject(o, "max_fanout", (double)r->max_fanout);
    cJSON_AddStringToObject(o, "max_fanout_prefix", r->max_fanout_prefix);
    cJSON_AddNumberToObject(o, "max_behind_one_prefix", (double)r->max_behind);
    cJSON_AddStringToObject(o, "max_behind_prefix", r->max_behind_prefix);
    cJSON_AddStringToObject(o, "fingerprint", fp);
    if (min_unique) cJSON_AddNumberToObject(o, "min_unique", (double)min_unique);
    cJSON_AddBoolToObject(o, "ok", ok);
    char *s = cJSON_Print(o);
    cJSON_Delete(o);
    if (!s) {
        fprintf(stderr, "routebench corpus check: out of memory\n");
        return CLI_USAGE;
    }
    puts(s);
    free(s);
    return CLI_OK;
}

static int corpus_check(int argc, char **argv)
{
    const char *in = NULL;
    bool json = false;
    unsigned long long min_unique = 0;
    rb_check_options opt = {1, 0, 0, 0};
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        unsigned long long n;
        if (cli_is_help(argv[i])) {
            fputs(check_usage, stdout);
            return CLI_OK;
        } else if (cli_flag(argv, i, "--json")) {
            json = true;
        } else if (cli_opt(argc, argv, &i, "--min-unique", &v)) {
            if (!v || !cli_parse_u64("--min-unique", v, 0, UINT64_MAX, &min_unique))
                return CLI_USAGE;
        } else if (cli_opt(argc, argv, &i, "--samples", &v)) {
            if (!v || !cli_parse_u64("--samples", v, 1, 1000000, &n)) return CLI_USAGE;
            opt.samples = (uint32_t)n;
        } else if (cli_opt(argc, argv, &i, "--seed", &v)) {
            if (!v || !cli_parse_u64("--seed", v, 0, UINT64_MAX, &n)) return CLI_USAGE;
            opt.seed = n;
        } else if (argv[i][0] != '-' && !in) {
            in = argv[i];
        } else {
            return cli_unknown("corpus check", argv[i]);
        }
    }
    if (!in) {
        fprintf(stderr, "routebench corpus check: needs FILE.routes\n\n%s", check_usage);
        return CLI_USAGE;
    }
    rb_route_table t;
    rb_error err;
    if (rb_route_table_read(in, &t, &err) < 0) {
        fprintf(stderr, "routebench corpus check: %s\n", err.message);
        return CLI_USAGE;
    }
    rb_check_report rep;
    if (rb_corpus_check(&t, &opt, &rep, &err) < 0) {
        fprintf(stderr, "routebench corpus check: %s\n", err.message);
        rb_route_table_free(&t);
        return CLI_USAGE;
    }
    bool unique_ok = rep.distinct_routes >= min_unique;
    bool ok =
        rep.shape_duplicates == 0 && rep.shadowed == 0 && rep.possibly_shadowed == 0 && unique_ok;
    int status = ok ? CLI_OK : CLI_FAILED;
    if (json) {
        if (print_check_json(in, &t, &rep, (size_t)min_unique, ok) != CLI_OK) status = CLI_USAGE;
    } else {
        print_check(in, &t, &rep);
        if (min_unique)
            printf("  --min-unique %llu: %s (%zu distinct routes)\n", min_unique,
                   unique_ok ? "ok" : "FAILED", rep.distinct_routes);
        printf("%s\n", ok ? "clean" : "problems found");
    }
    rb_check_report_free(&rep);
    rb_route_table_free(&t);
    return status;
}

/* ---- import ----------------------------------------------------------------------------- */

static int corpus_import(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if (cli_is_help(argv[i])) {
            fputs(import_usage, stdout);
            return CLI_OK;
        } else if (cli_opt(argc, argv, &i, "--openapi", &v)) {
            if (!v) return CLI_USAGE;
            in = v;
        } else if (cli_opt(argc, argv, &i, "--out", &v)) {
            if (!v) return CLI_USAGE;
            out = v;
        } else {
            return cli_unknown("corpus import", argv[i]);
        }
    }
    if (!in) {
        fprintf(stderr, "routebench corpus import: needs --openapi FILE\n\n%s", import_usage);
        return CLI_USAGE;
    }
    rb_route_table t;
    rb_openapi_report rep;
    rb_error err;
    if (rb_openapi_import_file(in, &t, &rep, &err) < 0) {
        fprintf(stderr, "routebench corpus import: %s\n", err.message);
        return CLI_USAGE;
    }
    int status = CLI_OK;
    FILE *info = out ? stdout : stderr; /* keep stdout for the routes */
    if (out) {
        char header[400];
        snprintf(header, sizeof header,
                 "imported from %s (OpenAPI %s%s%s%s) by routebench corpus import\n"
                 "every operation (path x method) in document order",
                 in, rep.version, rep.title[0] ? ", \"" : "", rep.title, rep.title[0] ? "\"" : "");
        if (rb_route_table_write(out, &t, header, &err) < 0) {
            fprintf(stderr, "routebench corpus import: %s\n", err.message);
            status = CLI_USAGE;
        }
    } else {
        for (size_t i = 0; i < t.count; i++)
            printf("%s %.*s\n", rb_method_name(t.routes[i].method), (int)t.routes[i].len,
                   rb_route_pattern(&t, i));
    }
    if (status == CLI_OK) {
        fprintf(info, "%zu routes from %zu paths of %s (OpenAPI %s)%s%s\n", rep.routes, rep.paths,
                in, rep.version, out ? " -> " : "", out ? out : "");
        if (rep.globs)
            fprintf(info, "  %zu segments with templates inside written as globs (?*)\n",
                    rep.globs);
        if (rep.renamed) fprintf(info, "  %zu parameter names rewritten\n", rep.renamed);
        if (rep.skipped)
            fprintf(info, "  %zu operations skipped (no such method here), first %s\n", rep.skipped,
                    rep.first_skipped);
        fprintf(info, "  fingerprint routes xxh3:%016llx\n",
                (unsigned long long)rb_route_table_fingerprint(&t));
    }
    rb_route_table_free(&t);
    return status;
}

/* ---- dispatch --------------------------------------------------------------------------- */

int cmd_corpus(int argc, char **argv)
{
    if (argc < 2) {
        fputs(corpus_usage, stderr);
        return CLI_USAGE;
    }
    if (cli_is_help(argv[1])) {
        fputs(corpus_usage, stdout);
        return CLI_OK;
    }
    const char *sub = argv[1];
    if (strcmp(sub, "gen") == 0) return corpus_gen(argc - 1, argv + 1);
    if (strcmp(sub, "requests") == 0) return corpus_requests(argc - 1, argv + 1);
    if (strcmp(sub, "check") == 0) return corpus_check(argc - 1, argv + 1);
    if (strcmp(sub, "import") == 0) return corpus_import(argc - 1, argv + 1);
    fprintf(stderr, "routebench corpus: unknown command '%s'\n\n%s", sub, corpus_usage);
    return CLI_USAGE;
}
