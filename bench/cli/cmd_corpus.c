/*
 * cmd_corpus.c — `routebench corpus`: generate corpora (by shape or like a
 * profile) and request tables, check route tables for duplicates and
 * shadowed routes, import OpenAPI documents, profile and compare tables.
 * The work and the reports are the corpus library's (gen_pair.h,
 * check_text.h, import_file.h, profile_file.h); this file parses
 * arguments and prints what they return.
 */
#include "check_text.h"
#include "cli.h"
#include "gen_pair.h"
#include "import_file.h"
#include "profile_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char corpus_usage[] =
    "usage: routebench corpus gen --routes N --seed S --shape SHAPE --out PREFIX\n"
    "       routebench corpus gen --routes N --seed S --like FILE --out PREFIX\n"
    "       routebench corpus requests FILE.routes [--out FILE.requests] [...]\n"
    "       routebench corpus check FILE.routes [--against B] [--json] [...]\n"
    "       routebench corpus import --openapi FILE [--out F] [--base-path B]\n"
    "       routebench corpus profile FILE.routes [--out FILE.json]\n"
    "       routebench corpus compare A B [--json]\n"
    "\n"
    "gen writes a route table of N routes with distinct (method, shape) and a\n"
    "request table for it, by shape or like a table or profile (--like);\n"
    "requests makes a request table for any route table; check reports duplicate,\n"
    "shadowed and repeated-shape routes; import turns an OpenAPI 3 or Swagger 2.0\n"
    "document (YAML or JSON) into a route table; profile describes a table\n"
    "without its words; compare puts two profiles side by side.\n"
    "routebench corpus COMMAND --help (or routebench help corpus COMMAND) for more.\n";

static int take_shape(void *field, const char *v, rb_error *err)
{
    int shape = rb_gen_shape_parse(v);
    if (shape < 0)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "must be static, params, mixed, catchall, glob or templates, got '%s'", v);
    *(int *)field = shape;
    return RB_OK;
}

static int take_dist(void *field, const char *v, rb_error *err)
{
    int dist = rb_req_dist_parse(v);
    if (dist < 0)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "must be uniform or zipf, got '%s'", v);
    *(int *)field = dist;
    return RB_OK;
}

/* The request generator's options, shared by gen and requests (their
 * destinations in rb_reqgen_config). */
static const cli_option reqgen_table[] = {
    CLI_OPT_SHARE("--miss", "M", offsetof(rb_reqgen_config, miss_ppm),
                  "share of misses, 0..1: paths mutated until no route matches",
                  .flags = CLI_SHOW_DEFAULT),
    CLI_OPT_SHARE("--wrong-method", "W", offsetof(rb_reqgen_config, wrong_method_ppm),
                  "share of the hits sent with another method (405s), 0..1",
                  .flags = CLI_SHOW_DEFAULT),
    CLI_OPT_CALL("--dist", "uniform|zipf", offsetof(rb_reqgen_config, dist), take_dist,
                 "route popularity: uniform (default), or Zipf (weight 1/k)"),
    {0}};

/* ---- gen ------------------------------------------------------------------------------------- */

typedef struct gen_options {
    rb_gen_pair_config c;
    const char *out;
} gen_options;

static int take_param_syntax(void *field, const char *v, rb_error *err)
{
    int *out = field;
    if (strcmp(v, "colon") == 0)
        *out = RB_LIKE_SYNTAX_COLON;
    else if (strcmp(v, "brace") == 0)
        *out = RB_LIKE_SYNTAX_BRACE;
    else
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "must be colon or brace, got '%s'", v);
    return RB_OK;
}

static int take_generator(void *field, const char *v, rb_error *err)
{
    uint32_t g = strcmp(v, "v3") == 0 ? RB_LIKE_V3 : rb_gen_generator_parse(v);
    if (!g) return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "must be v1, v2 or v3, got '%s'", v);
    *(uint32_t *)field = g;
    return RB_OK;
}

static const cli_option gen_table[] = {
    CLI_OPT_RANGE(CLI_SIZE, "--routes", "N", offsetof(gen_options, c.g.routes), 1,
                  RB_GEN_MAX_ROUTES, "routes to generate, every (method, shape) distinct",
                  .flags = CLI_REQUIRED),
    CLI_SEED(offsetof(gen_options, c.g.seed), CLI_REQUIRED,
             "generator seed (the requests use it too)"),
    CLI_OPT_CALL("--shape", "SHAPE", offsetof(gen_options, c.g.shape), take_shape,
                 "static, params, mixed, catchall, glob or templates (this or --like)",
                 .excludes = "--like"),
    CLI_OPT_STRING(
        "--like", "FILE", offsetof(gen_options, c.like),
        "instead of a shape: a table like FILE (a routes file, yours or an imported one, or a "
        "profile from `corpus profile`).  From a routes file (v3): FILE's tree with its words "
        "renamed, its shared prefix (/2.0, /api) kept as it is, grown by copies of its resources, "
        "so params per route, adjacent params, templates and extensions keep FILE's proportions.  "
        "From a profile (v2): its depths, segment kinds per depth, fan-out, static and param "
        "siblings, methods, word lengths, versions, extensions, template forms and param syntax, "
        "grown below every level.  `corpus compare FILE PREFIX.routes` shows how alike they are",
        .excludes = "--shape --no-conflicts"),
    CLI_OPT_CALL(
        "--param-syntax", "colon|brace", offsetof(gen_options, c.param_syntax), take_param_syntax,
        "with --like and --generator v2: params written :id (catch-alls *path) or {id} ({*path}); "
        "by default the syntax most of FILE's params use.  Templates ({sid}.json) need brace"),
    CLI_OPT_CALL("--generator", "v1|v2|v3", offsetof(gen_options, c.g.generator), take_generator,
                 "v2 (the default): depth peaks at 4-5 and fan-out grows with N, like the public "
                 "tables; v1: the original generator (fan-out 32, so large tables pile up at depth "
                 "8), kept byte-identical to reproduce published corpora and figures.  With "
                 "--like: v3 (the default for a routes file) keeps FILE's tree and shared prefix, "
                 "its words synthetic, and grows by copies of its resources; v2 (the default for a "
                 "profile) fits the profile's counts and grows below every level; v1 widens only "
                 "the root; v1 and v2 are byte-identical to the corpora made before"),
    CLI_OPT_STRING("--out", "PREFIX", offsetof(gen_options, out),
                   "writes PREFIX.routes and PREFIX.requests", .flags = CLI_REQUIRED),
    CLI_OPT_FLAG("--no-conflicts", offsetof(gen_options, c.g.no_conflicts),
                 "no static and param (or other) siblings at one position, for routers such as "
                 "httprouter 1.x and r3"),
    CLI_OPT_RANGE(CLI_SIZE, "--requests", "C", offsetof(gen_options, c.q.count), 1,
                  RB_REQGEN_MAX_COUNT, "requests to write", .flags = CLI_SHOW_DEFAULT),
    {0}};

static const cli_command gen_command = {
    .name = "corpus gen",
    .synopsis = "--routes N --seed S --shape SHAPE --out PREFIX\n"
                " [--no-conflicts] [--generator v1|v2]\n"
                " [--requests C] [--miss M]\n"
                " [--wrong-method W] [--dist uniform|zipf]\n"
                "--routes N --seed S --like FILE --out PREFIX\n"
                " [--requests C] [...]\n",
    .about = "Writes PREFIX.routes (N routes, every (method, shape) distinct) and PREFIX.requests "
             "(as `corpus requests` makes them, with the same seed).  The same arguments give "
             "byte-identical files on every machine.  Both files are complete on disk before "
             "either replaces an old one, the requests first: a killed run leaves the old pair, "
             "the new pair, or old routes beside new requests, which name the new routes' "
             "fingerprint, so verify, run and pair refuse them (exit 2).\n"
             "\n"
             "shapes:\n"
             "  static    no parameters\n"
             "  params    every route has a parameter\n"
             "  mixed     a REST API: namespaces, collections, items, sub-resources, actions,\n"
             "            views beside items (/users/me beside /users/:user_id); GET dominant\n"
             "  catchall  mixed plus catch-alls (*path), a few with method '*'\n"
             "  glob      mixed plus globs (*.css, report-*.csv, img-??.png, [a-f]*.json,\n"
             "            prefix-*) and '**'\n"
             "  templates the mixed tree of the same seed with about half of the last\n"
             "            segments as templates ({user_id}.json, {user_id}.{format},\n"
             "            us_{user_id}, {user_id}-{rev}, settings.{format}); with\n"
             "            --no-conflicts only items without children\n",
    .tables = {{"options", gen_table, 0},
               {"requests (as for corpus requests)", reqgen_table, offsetof(gen_options, c.q)}},
    .epilog = "exit status: 0 written, 2 usage error or the arguments cannot hold N routes\n",
};

/* Print text on stdout (info) or stderr, then free it; CLI_SYSTEM when it
 * could not be made. */
static int print_text(const char *cmd, rb_buf *text, FILE *info)
{
    int status = text->failed ? cli_system_error(cmd, "out of memory") : CLI_OK;
    if (status == CLI_OK && text->data) fwrite(text->data, 1, text->len, info);
    rb_buf_free(text);
    return status;
}

static int corpus_gen(int argc, char **argv)
{
    gen_options o = {0};
    o.c.g.shape = -1;
    rb_reqgen_config_init(&o.c.q);
    int status = cli_args(&gen_command, &o, argc, argv);
    if (status != CLI_CONTINUE) return status;
    if (o.c.g.shape < 0 && !o.c.like) return cli_error("corpus gen", "needs --shape or --like");
    if (o.c.param_syntax && !o.c.like)
        return cli_error("corpus gen", "--param-syntax needs --like");
    if (o.c.g.generator == RB_LIKE_V3 && !o.c.like)
        return cli_error("corpus gen", "--generator v3 needs --like (it copies a table's tree)");
    char rpath[4096], qpath[4096];
    if ((size_t)snprintf(rpath, sizeof rpath, "%s.routes", o.out) >= sizeof rpath ||
        (size_t)snprintf(qpath, sizeof qpath, "%s.requests", o.out) >= sizeof qpath)
        return cli_error("corpus gen", "--out is too long");
    if (cli_check_output_file("corpus gen", "--out", rpath) != CLI_OK) return CLI_USAGE;
    rb_gen_pair pair;
    rb_error err;
    int rc = rb_gen_pair_make(&o.c, &pair, &err);
    if (rc == RB_OK) rc = rb_gen_pair_write(&pair, rpath, qpath, &err);
    if (rc < 0) {
        status = cli_error_of("corpus gen", &err);
    } else {
        rb_buf text = {0};
        rb_gen_pair_summary(&pair, &o.c, rpath, qpath, &text);
        status = print_text("corpus gen", &text, stdout);
    }
    rb_gen_pair_free(&pair);
    return status;
}

/* ---- requests -------------------------------------------------------------------------------- */

typedef struct requests_options {
    rb_reqgen_config q;
    const char *in, *out, *paths;
} requests_options;

static const cli_option requests_table[] = {
    CLI_OPT_STRING("--out", "FILE", offsetof(requests_options, out),
                   "write the requests to FILE (default: stdout, the summary then goes to stderr)"),
    CLI_OPT_RANGE(CLI_SIZE, "--count", "C", offsetof(requests_options, q.count), 1,
                  RB_REQGEN_MAX_COUNT, "requests to write", .flags = CLI_SHOW_DEFAULT),
    CLI_SEED(offsetof(requests_options, q.seed), CLI_SHOW_DEFAULT, "generator seed"),
    CLI_OPT_STRING("--paths", "FILE", offsetof(requests_options, paths),
                   "instead of generating: the methods and paths of the request table FILE, with "
                   "EXPECTED recomputed for FILE.routes (the same requests against another table, "
                   "e.g. one with templates written as params)",
                   .excludes = "--count --seed --miss --wrong-method --dist"),
    {0}};

static const cli_command requests_command = {
    .name = "corpus requests",
    .synopsis = "FILE.routes [--out FILE.requests] [--count C]\n"
                " [--seed S] [--miss M] [--wrong-method W]\n"
                " [--dist uniform|zipf]\n"
                "FILE.routes --paths FILE.requests [--out F]\n",
    .about = "Writes C requests for any route table.  Hits fill a route's params and wildcards "
             "with random values no static word equals; a share W of them use another method "
             "(405s); a share M are misses: paths mutated until no route matches.  EXPECTED is "
             "linear's answer, never the generator's intent; hits that a higher-priority route "
             "takes are counted and reported.  With --paths, the requests of another request "
             "table instead, EXPECTED recomputed for this one.  The first line, '# routes "
             "xxh3:<fingerprint>', records the route table (a comment to older readers): verify, "
             "run and pair refuse the requests with another table.\n",
    .tables = {{"options", requests_table, 0},
               {"request mix", reqgen_table, offsetof(requests_options, q)}},
    .operand = "FILE.routes",
    .operand_offset = offsetof(requests_options, in),
    .operand_required = true,
    .epilog = "exit status: 0 written, 2 usage or input error\n",
};

static int corpus_requests(int argc, char **argv)
{
    requests_options o = {0};
    rb_reqgen_config_init(&o.q);
    int status = cli_args(&requests_command, &o, argc, argv);
    if (status != CLI_CONTINUE) return status;
    const char *out = o.out ? o.out : "-";
    if (cli_check_output_file("corpus requests", "--out", out) != CLI_OK) return CLI_USAGE;
    rb_route_table routes;
    rb_error err;
    if (rb_route_table_read(o.in, &routes, &err) < 0)
        return cli_error("corpus requests", "%s", err.message);
    FILE *info = o.out ? stdout : stderr; /* keep stdout for the requests */
    fprintf(info, "%zu routes from %s (fingerprint xxh3:%016llx)\n", routes.count, o.in,
            (unsigned long long)rb_route_table_fingerprint(&routes));
    rb_request_table reqs = {0};
    rb_reqgen_report rep;
    rb_buf text = {0};
    int rc = rb_requests_make(&routes, &o.q, o.paths, &reqs, &rep, &text, &err);
    if (rc < 0) {
        status = cli_error_of("corpus requests", &err);
    } else {
        status = cli_write_output("corpus requests", out, text.data ? text.data : "", text.len);
    }
    rb_buf_free(&text);
    if (status == CLI_OK) {
        rb_requests_summary(&reqs, &rep, &o.q, o.paths, out, &text);
        status = print_text("corpus requests", &text, info);
    }
    rb_request_table_free(&reqs);
    rb_route_table_free(&routes);
    return status;
}

/* ---- check ----------------------------------------------------------------------------------- */

typedef struct check_options {
    rb_check_options opt;
    size_t min_unique;
    bool json;
    const char *in, *against;
} check_options;

static const cli_option check_table[] = {
    CLI_OPT_RANGE(CLI_SIZE, "--min-unique", "K", offsetof(check_options, min_unique), 0, SIZE_MAX,
                  "fail unless there are at least K distinct (method, shape)"),
    CLI_OPT_FLAG("--json", offsetof(check_options, json),
                 "the report as JSON on stdout (fields: corpus/check.h)"),
    CLI_OPT_RANGE(CLI_U32, "--samples", "N", offsetof(check_options, opt.samples), 1, 1000000,
                  "paths sampled per glob route to decide shadowing", .flags = CLI_SHOW_DEFAULT),
    CLI_SEED(offsetof(check_options, opt.seed), CLI_SHOW_DEFAULT, "seed of the sampling"),
    CLI_OPT_STRING(
        "--against", "B", offsetof(check_options, against),
        "then the table's profile beside B's (a routes file or a profile), as `corpus compare "
        "FILE.routes B` prints it; with --json the output is {\"check\": ..., \"against\": ...}"),
    {0}};

static const cli_command check_command = {
    .name = "corpus check",
    .synopsis = "FILE.routes [--min-unique K] [--json]\n"
                " [--samples N] [--seed S] [--against B]\n",
    .about = "Reports: routes; exact duplicate lines; shape duplicates (same method and shape, "
             "with both line numbers); shadowed routes (can never win: every path they match is "
             "taken by a higher-priority route; exact for static, param, catch-all, '**' and '*' "
             "segments, other globs are sampled and may be 'possibly shadowed'); distinct routes "
             "(method, shape), shapes and skeletons (static words erased too); depth and fan-out "
             "histograms; the most routes behind one parent prefix; the fingerprint (XXH3) of "
             "the canonical route list.  A table without routes is not clean: it proves "
             "nothing.  The last line is the verdict, as --json's \"verdict\": \"clean for N "
             "routes\", with \"; M routes checked by sampling\" when some were (each won a "
             "sampled path), or \"problems found: ...\" with the counts, and how many routes "
             "the work budget (linear in the table) left undecided.\n",
    .tables = {{"options", check_table, 0}},
    .operand = "FILE.routes",
    .operand_offset = offsetof(check_options, in),
    .operand_required = true,
    .epilog = "exit status: 0 clean, 1 duplicates, shadowed routes, no routes (or fewer than K\n"
              "unique), 2 input error\n",
};

static int corpus_check(int argc, char **argv)
{
    check_options o = {0};
    rb_check_options_init(&o.opt);
    int status = cli_args(&check_command, &o, argc, argv);
    if (status != CLI_CONTINUE) return status;
    rb_route_table t;
    rb_error err;
    if (rb_route_table_read(o.in, &t, &err) < 0)
        return cli_error("corpus check", "%s", err.message);
    rb_check_report rep;
    if (rb_corpus_check(&t, &o.opt, &rep, &err) < 0) {
        rb_route_table_free(&t);
        return cli_error("corpus check", "%s", err.message);
    }
    status = rb_check_clean(&rep, o.min_unique) ? CLI_OK : CLI_FAILED;
    rb_check_text_options to = {o.min_unique, o.against, o.json};
    rb_buf text = {0};
    int rc = rb_check_text(o.in, &t, &rep, &to, &text, &err);
    if (rc < 0) {
        status = cli_error_of("corpus check", &err);
    } else if (cli_write_output("corpus check", "-", text.data, text.len) != CLI_OK) {
        status = CLI_SYSTEM;
    }
    rb_buf_free(&text);
    if (rc == RB_OK && rep.routes == 0) cli_error("corpus check", "%s has no routes", o.in);
    rb_check_report_free(&rep);
    rb_route_table_free(&t);
    return status;
}

/* ---- import ---------------------------------------------------------------------------------- */

typedef struct import_options {
    const char *in, *out, *base_path;
} import_options;

static const cli_option import_table[] = {
    CLI_OPT_STRING("--openapi", "FILE", offsetof(import_options, in),
                   "the OpenAPI 3.x or Swagger 2.0 document, YAML or JSON", .flags = CLI_REQUIRED),
    CLI_OPT_STRING("--out", "FILE", offsetof(import_options, out),
                   "write the routes to FILE (default: stdout, the summary then goes to stderr)"),
    CLI_OPT_STRING("--base-path", "KEEP|none|/PATH", offsetof(import_options, base_path),
                   "the prefix of every route: KEEP (the default) the document's base path, the "
                   "path of servers[0].url (3.x) or basePath (2.0); none; or /PATH"),
    {0}};

static const cli_command import_command = {
    .name = "corpus import",
    .synopsis = "--openapi FILE [--out FILE.routes]\n"
                " [--base-path KEEP|none|/PATH]\n",
    .about = "Writes one route per operation of an OpenAPI 3.x or Swagger 2.0 document (YAML or "
             "JSON): its paths in document order, each with its operations in document order "
             "({param} kept), under the document's base path (the path part of servers[0].url "
             "with its variables' defaults, or 2.0's basePath; the summary says which, and "
             "names the other base paths servers lists).  Templates inside a segment "
             "({Sid}.json) stay templates (touching params, {a}{b}, become globs); a path key's "
             "#fragment or ?query is not routed: such variants of a path merge into its route "
             "(the summary counts them and names the first); OpenAPI 3.2 'query' operations are "
             "skipped and counted; unknown keys, a key given twice and malformed documents are "
             "errors naming where (line and column), and so are data after the document and a "
             "NUL in a string; a path with whitespace or a control byte (a tab, a CR) is refused "
             "naming the byte, since a routes file cannot carry it.  Budgets: the document at "
             "most 256 MiB and 16,000,000 nodes; YAML aliases and merge keys may copy at most "
             "1,000,000 nodes and 64 MiB.\n",
    .tables = {{"options", import_table, 0}},
    .epilog = "exit status: 0 written, 2 usage or input error\n",
};

static int corpus_import(int argc, char **argv)
{
    import_options o = {0};
    int status = cli_args(&import_command, &o, argc, argv);
    if (status != CLI_CONTINUE) return status;
    if (o.base_path && strcmp(o.base_path, "KEEP") != 0 && strcmp(o.base_path, "none") != 0 &&
        o.base_path[0] != '/')
        return cli_error("corpus import", "--base-path must be KEEP, none or /PATH, got '%s'",
                         o.base_path);
    const char *out = o.out ? o.out : "-";
    if (cli_check_output_file("corpus import", "--out", out) != CLI_OK) return CLI_USAGE;
    rb_route_table t;
    rb_openapi_report rep;
    rb_error err;
    rb_openapi_options opt = {o.base_path};
    rb_buf text = {0};
    int rc = rb_openapi_import_text(o.in, &opt, o.out != NULL, &t, &rep, &text, &err);
    if (rc < 0) {
        rb_buf_free(&text);
        return cli_error_of("corpus import", &err);
    }
    status = cli_write_output("corpus import", out, text.data ? text.data : "", text.len);
    rb_buf_free(&text);
    if (status == CLI_OK) {
        rb_openapi_import_summary(&rep, &t, o.in, o.out, &opt, &text);
        status = print_text("corpus import", &text, o.out ? stdout : stderr);
    }
    rb_route_table_free(&t);
    return status;
}

/* ---- profile --------------------------------------------------------------------------------- */

typedef struct profile_options {
    const char *in, *out;
} profile_options;

static const cli_option profile_table[] = {
    CLI_OPT_STRING("--out", "FILE", offsetof(profile_options, out),
                   "write the profile to FILE, atomically (default: stdout)"),
    {0}};

static const cli_command profile_command = {
    .name = "corpus profile",
    .synopsis = "FILE.routes [--out FILE.json]\n",
    .about = "Writes the profile of a route table as JSON (schema routebench-profile, "
             "corpus/profile.h): routes by depth; per depth the prefixes by kind (static, param, "
             "template, glob, '**', catch-all), with and without children and routes, their "
             "fan-out, static and param siblings, versions, extensions, trailing slashes; "
             "methods; methods per path; static word lengths.  Counts only: no word of the "
             "table is in it, so it can be shared instead of the routes.  `corpus gen --like` "
             "and `corpus compare` read it as they read a routes file.\n",
    .tables = {{"options", profile_table, 0}},
    .operand = "FILE.routes",
    .operand_offset = offsetof(profile_options, in),
    .operand_required = true,
    .epilog = "exit status: 0 written, 2 usage or input error\n",
};

static int corpus_profile(int argc, char **argv)
{
    profile_options o = {0};
    int status = cli_args(&profile_command, &o, argc, argv);
    if (status != CLI_CONTINUE) return status;
    const char *out = o.out ? o.out : "-";
    if (cli_check_output_file("corpus profile", "--out", out) != CLI_OK) return CLI_USAGE;
    rb_profile p;
    rb_error err;
    rb_buf b = {0};
    int rc = rb_profile_read(o.in, &p, NULL, &err);
    if (rc == RB_OK) rc = rb_profile_json_write(&p, &b, &err);
    status = rc < 0 ? cli_error("corpus profile", "%s", err.message)
                    : cli_write_output("corpus profile", out, b.data, b.len);
    rb_buf_free(&b);
    if (status == CLI_OK && o.out)
        printf("profile of %s (%llu routes) -> %s\n", o.in, (unsigned long long)p.routes, o.out);
    return status;
}

/* ---- compare --------------------------------------------------------------------------------- */

typedef struct compare_options {
    bool json;
} compare_options;

static const cli_option compare_table[] = {
    CLI_OPT_FLAG("--json", offsetof(compare_options, json),
                 "the comparison as JSON (counts and totals per bin; fields: corpus/profile.h)"),
    {0}};

static const cli_command compare_command = {
    .name = "corpus compare",
    .synopsis = "A B [--json]\n",
    .about = "Puts the profiles of A and B side by side (each a routes file or a profile from "
             "`corpus profile`): per histogram (routes by depth; prefixes by depth and kind; "
             "fan-out by depth; methods; methods per path; static word lengths; static and "
             "param siblings; trailing slashes, versions, extensions) the shares of A and B and "
             "one distance, the total variation (half the sum of the absolute differences of "
             "the shares: 0 the same distribution, 1 disjoint), and the mean distance.\n",
    .tables = {{"options", compare_table, 0}},
    .epilog = "exit status: 0 compared, 2 usage or input error\n",
};

static int corpus_compare(int argc, char **argv)
{
    /* two operands, A and B; the parser takes the options around them */
    const char *in[2] = {NULL, NULL};
    char *rest[64];
    int nrest = 0, nin = 0;
    for (int i = 0; i < argc && nrest < 64; i++) {
        if (i > 0 && argv[i][0] != '-' && nin < 2)
            in[nin++] = argv[i];
        else
            rest[nrest++] = argv[i];
    }
    compare_options o = {0};
    int status = cli_args(&compare_command, &o, nrest, rest);
    if (status != CLI_CONTINUE) return status;
    if (nin < 2) return cli_error("corpus compare", "needs A and B (routes files or profiles)");
    rb_error err;
    rb_buf b = {0};
    int rc = rb_profile_compare_files(in[0], in[1], o.json, &b, &err);
    status = rc < 0 ? cli_error("corpus compare", "%s", err.message)
                    : cli_write_output("corpus compare", "-", b.data, b.len);
    rb_buf_free(&b);
    return status;
}

/* ---- dispatch -------------------------------------------------------------------------------- */

int cmd_corpus(int argc, char **argv)
{
    if (argc < 2) {
        fputs(corpus_usage, stderr);
        return CLI_USAGE;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        fputs(corpus_usage, stdout);
        return CLI_OK;
    }
    const char *sub = argv[1];
    if (strcmp(sub, "gen") == 0) return corpus_gen(argc - 1, argv + 1);
    if (strcmp(sub, "requests") == 0) return corpus_requests(argc - 1, argv + 1);
    if (strcmp(sub, "check") == 0) return corpus_check(argc - 1, argv + 1);
    if (strcmp(sub, "import") == 0) return corpus_import(argc - 1, argv + 1);
    if (strcmp(sub, "profile") == 0) return corpus_profile(argc - 1, argv + 1);
    if (strcmp(sub, "compare") == 0) return corpus_compare(argc - 1, argv + 1);
    return cli_error("corpus", "unknown command '%s' (routebench corpus --help lists them)", sub);
}
