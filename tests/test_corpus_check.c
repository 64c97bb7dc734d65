/*
 * test_corpus_check.c — the corpus check (corpus/check.h).
 *
 * Rules checked:
 *   - a corpus built the faulty way (five URL shapes reused 2,000 times, as
 *     the withdrawn 55.7x benchmark did) is caught with exact counts, and
 *     one with 100 terminal entries behind each parent shows 5 skeletons;
 *   - exact shadowing: hand cases with verdicts reasoned from docs/design.md's
 *     priority rules (unions, '*' routes, proper-prefix keys);
 *   - the shadow decision agrees with linear: on random small route sets,
 *     every "not shadowed" witness is a path where linear picks the route,
 *     and for every "shadowed" route no path of up to four segments over
 *     the table's words (plus an empty and a fresh segment) is won by it;
 *   - metrics of a small table, counted by hand; the CLI's --json and exit
 *     statuses.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "buf.h"
#include "file.h"
#include "fill.h"
#include "oracle.h"
#include "rng.h"
#include "rb_test.h"
#include "shipped.h"

extern const rb_router_ops rb__linear_ops;

static rb_route_table parse(const char *text)
{
    rb_route_table t;
    rb_error err;
    int rc = rb_route_table_parse("test", text, strlen(text), &t, &err);
    cr_assert_eq(rc, RB_OK, "%s", err.message);
    return t;
}

/* ---- the planted faulty corpora ------------------------------------------------------ */

/* Five URL shapes written 2,000 times each, parameter names varied so the
 * lines differ; the static one repeats exactly.  A header line shifts file
 * lines to route id + 2. */
static char *planted_reuse(void)
{
    rb_buf b = {0};
    rb_buf_puts(&b, "# planted: 5 shapes x 2000\n");
    for (int k = 0; k < 2000; k++) {
        rb_buf_printf(&b, "GET /api/users/:id%d\n", k);
        rb_buf_printf(&b, "GET /api/users/:id%d/posts\n", k);
        rb_buf_printf(&b, "POST /api/posts/{post%d}/comments\n", k);
        rb_buf_puts(&b, "GET /api/search\n");
        rb_buf_printf(&b, "DELETE /api/items/:item%d\n", k);
    }
    cr_assert(!b.failed);
    return b.data;
}

Test(corpus_check, planted_shape_reuse_is_caught_with_exact_counts)
{
    char *text = planted_reuse();
    rb_route_table t = parse(text);
    free(text);
    rb_check_report r;
    rb_error err;
    cr_assert_eq(rb_corpus_check(&t, NULL, &r, &err), RB_OK, "%s", err.message);
    cr_expect_eq(r.routes, 10000);
    cr_expect_eq(r.distinct_routes, 5);
    cr_expect_eq(r.distinct_shapes, 5);
    /* /s/s/{}, /s/s/{}/s, /s/s: the comments and posts routes share one */
    cr_expect_eq(r.distinct_skeletons, 3);
    cr_expect_eq(r.shape_duplicates, 9995);
    cr_expect_eq(r.exact_duplicates, 1999);
    /* every duplicate names the first line of its template */
    for (size_t i = 0; i < r.shape_duplicates; i++) {
        cr_expect_eq(r.shape[i].earlier, r.shape[i].route % 5, "route %u", r.shape[i].route);
        cr_expect_geq(r.shape[i].route, 5);
    }
    for (size_t i = 0; i < r.exact_duplicates; i++) {
        cr_expect_eq(r.exact[i].route % 5, 3);
        cr_expect_eq(r.exact[i].earlier, 3);
    }
    cr_expect_eq(r.shadowed + r.possibly_shadowed, 0);
    cr_expect_eq(r.depth[2], 2000); /* /api/search */
    cr_expect_eq(r.depth[3], 4000); /* /api/users/:id, /api/items/:item */
    cr_expect_eq(r.depth[4], 4000); /* .../posts, .../comments */
    cr_expect_eq(r.max_behind, 1);
    rb_check_report_free(&r);
    rb_route_table_free(&t);
}

/* Five skeletons, 20 groups, 100 terminal entries behind each parent: all
 * shapes distinct, so only the diversity metrics tell. */
Test(corpus_check, planted_terminal_entries_show_in_skeletons_and_fanout)
{
    rb_buf b = {0};
    for (int g = 0; g < 20; g++) {
        for (int k = 0; k < 100; k++) {
            rb_buf_printf(&b, "GET /api/g%d/e%d\n", g, k);
            rb_buf_printf(&b, "GET /api/g%d/search/e%d\n", g, k);
            rb_buf_printf(&b, "GET /api/g%d/users/:id/e%d\n", g, k);
            rb_buf_printf(&b, "GET /api/g%d/users/:id/posts/e%d\n", g, k);
            rb_buf_printf(&b, "GET /api/g%d/orgs/:org/repos/:repo/e%d\n", g, k);
        }
    }
    cr_assert(!b.failed);
    rb_route_table t = parse(b.data);
    rb_buf_free(&b);
    rb_check_report r;
    rb_error err;
    cr_assert_eq(rb_corpus_check(&t, NULL, &r, &err), RB_OK, "%s", err.message);
    cr_expect_eq(r.distinct_routes, 10000);
    cr_expect_eq(r.distinct_shapes, 10000);
    cr_expect_eq(r.distinct_skeletons, 5);
    cr_expect_eq(r.shape_duplicates + r.exact_duplicates + r.shadowed, 0);
    cr_expect_eq(r.max_behind, 100);
    /* /api/gG has 100 entries + users, search, orgs */
    cr_expect_eq(r.max_fanout, 103);
    /* per group: /api/gG, .../users/{}, .../posts, .../search, .../repos/{} */
    cr_expect_eq(r.fanout[6], 100, "64-127: %zu", r.fanout[6]);
    cr_expect_eq(r.fanout[4], 1, "16-31 (/api): %zu", r.fanout[4]);
    /* the root, and per group users, orgs, orgs/{}, repos */
    cr_expect_eq(r.fanout[0], 81, "1: %zu", r.fanout[0]);
    for (int d = 3; d <= 7; d++) cr_expect_eq(r.depth[d], 2000, "depth %d", d);
    rb_check_report_free(&r);
    rb_route_table_free(&t);
}

/* ---- metrics by hand ----------------------------------------------------------------- */

Test(corpus_check, metrics_of_a_small_table)
{
    rb_route_table t = parse("GET /a\nGET /a/b\nPOST /a/b\nGET /a/:x\nGET /c/d/e\n* /c/*rest\n");
    rb_check_report r;
    cr_assert_eq(rb_corpus_check(&t, NULL, &r, NULL), RB_OK);
    cr_expect_eq(r.routes, 6);
    cr_expect_eq(r.distinct_routes, 6);
    cr_expect_eq(r.distinct_shapes, 5);
    cr_expect_eq(r.distinct_skeletons, 5); /* s, ss, sp, sss, sc */
    cr_expect_eq(r.depth[1], 1);
    cr_expect_eq(r.depth[2], 4);
    cr_expect_eq(r.depth[3], 1);
    cr_expect_eq(r.min_depth, 1);
    cr_expect_eq(r.max_depth, 3);
    cr_expect_eq(r.fanout[0], 1); /* /c/d */
    cr_expect_eq(r.fanout[1], 3); /* root, /a, /c */
    cr_expect_eq(r.max_fanout, 2);
    cr_expect_eq(r.max_behind, 3);
    cr_expect_str_eq(r.max_behind_prefix, "/a");
    cr_expect_eq(r.shadowed + r.possibly_shadowed + r.shape_duplicates, 0);
    cr_expect_eq(r.fingerprint, rb_route_table_fingerprint(&t));
    rb_check_report_free(&r);
    rb_route_table_free(&t);
}

/* ---- shadowing: hand cases ------------------------------------------------------------- */

typedef struct verdicts {
    const char *routes;
    const char *want; /* per route: n = not shadowed, s = shadowed, p = possibly, d = dup */
    const char *why;
} verdicts;

static const verdicts cases[] = {
    {"GET /p/**\nGET /p/*rest\n", "ns", "'**' (rank 3) takes every path of a catch-all (4)"},
    {"POST /p/**\nGET /p/*rest\n", "nn", "a better route of another method covers nothing"},
    {"GET /p/:id\nGET /p/*.json\n", "np", "a param takes every segment the glob takes (sampled)"},
    {"GET /q/**\nGET /q/**/x\n", "ns", "the shorter key is a proper prefix, so it wins"},
    {"GET /m/:id\nHEAD /m/:id\nPOST /m/:id\nPUT /m/:id\nDELETE /m/:id\nCONNECT /m/:id\n"
     "OPTIONS /m/:id\nTRACE /m/:id\nPATCH /m/:id\n* /m/:id\n",
     "nnnnnnnnns", "'*' is shadowed only when all nine methods are taken"},
    {"GET /m/:id\nHEAD /m/:id\nPOST /m/:id\nPUT /m/:id\nDELETE /m/:id\nCONNECT /m/:id\n"
     "OPTIONS /m/:id\nTRACE /m/:id\n* /m/:id\n",
     "nnnnnnnnn", "PATCH still goes to '*'"},
    {"GET /u/:id\nGET /u/\nGET /u/*\n", "nns", "a union: the param takes nonempty, /u/ empty"},
    {"GET /u/:id\nGET /u/*\n", "nn", "'*' alone takes the empty segment"},
    {"GET /c/:a/**\nGET /c//**\nGET /c/*rest\n", "nns",
     "a union: first segment nonempty, or empty"},
    {"GET /c/:a/**\nGET /c/*rest\n", "nn", "a rest starting with an empty segment escapes"},
    {"* /v/**\nGET /v/**/z\n", "ns", "a '*' route with a better key takes every method"},
    {"GET /s/:id\n* /s/:id\n", "nn", "specific before '*', but '*' keeps other methods"},
    {"GET /e/\nGET /e/:x\nGET /e/*rest\n", "nnn", "deeper paths escape"},
    {"GET /\nGET /**\n", "nn", "'**' takes more than the root"},
    {"GET /g/:a\nGET /g/**\nGET /g/*\n", "nnn", "'*' beats '**' on the empty segment"},
    {"GET /k/a\nGET /k/a\nGET /k/:b\n", "ndn", "an exact duplicate is a duplicate, not shadowed"},
    {"GET /i/x?/b\nGET /i/**/b\n", "nn", "a glob skipped by the search; linear confirms"},
    {"GET /b\nGET /?*/b\nGET /?*/**/b\nGET //**/b\nGET /**/b\n", "nnnnp",
     "covered through globs: reported possibly shadowed"},
};

static rb_router *full_linear(const rb_route_table *t, const rb_shape_tree *st)
{
    rb_router *r;
    cr_assert_eq(rb_router_create_ops(&rb__linear_ops, NULL, &r, NULL), RB_OK);
    for (size_t i = 0; i < t->count; i++) {
        if (st->dup_of[i] != RB_ST_NONE) continue;
        cr_assert_eq(rb_router_add(r, t->routes[i].method, rb_route_pattern(t, i), t->routes[i].len,
                                   (uint32_t)i, NULL),
                     RB_OK);
    }
    cr_assert_eq(rb_router_build(r, NULL), RB_OK);
    return r;
}

static void expect_witness(const rb_route_table *t, rb_router *lin, uint32_t route,
                           const rb_shadow_result *res, const char *ctx)
{
    cr_assert_gt(res->witness_len, 0, "%s: route %u has no witness", ctx, route);
    rb_match m;
    rb_router_lookup(lin, res->method, res->witness, res->witness_len, &m);
    cr_expect(m.outcome == RB_FOUND && m.route_id == route,
              "%s: route %u (%.*s) should win %s %.*s, linear says %d/%u", ctx, route,
              (int)t->routes[route].len, rb_route_pattern(t, route), rb_method_name(res->method),
              (int)res->witness_len, res->witness, m.outcome, m.route_id);
}

Test(corpus_check, hand_cases_of_shadowing)
{
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        rb_route_table t = parse(cases[c].routes);
        cr_assert_eq(t.count, strlen(cases[c].want));
        rb_shape_tree st;
        cr_assert_eq(rb_shape_tree_build(&t, &st, NULL), RB_OK);
        rb_shadow_ctx *ctx;
        cr_assert_eq(rb_shadow_ctx_new(&st, NULL, &ctx), RB_OK);
        rb_router *lin = full_linear(&t, &st);
        for (uint32_t r = 0; r < t.count; r++) {
            char want = cases[c].want[r];
            if (want == 'd') {
                cr_expect_neq(st.dup_of[r], RB_ST_NONE, "case %zu route %u", c, r);
                continue;
            }
            rb_shadow_result res;
            cr_assert_eq(rb_shadow_decide(ctx, r, &res, NULL), RB_OK);
            char got = res.verdict == RB_NOT_SHADOWED ? 'n'
                       : res.verdict == RB_SHADOWED   ? 's'
                                                      : 'p';
            cr_expect_eq(got, want, "case %zu (%s) route %u: got %c, want %c", c, cases[c].why, r,
                         got, want);
            if (got == 'n') expect_witness(&t, lin, r, &res, cases[c].why);
            if (got == 's') cr_expect(res.exact);
        }
        rb_router_destroy(lin);
        rb_shadow_ctx_free(ctx);
        rb_shape_tree_free(&st);
        rb_route_table_free(&t);
    }
}

Test(corpus_check, shadowed_routes_are_listed_by_the_report)
{
    rb_route_table t = parse("GET /p/**\nGET /p/*rest\nGET /p/:id\nGET /p/*.json\n");
    rb_check_report r;
    cr_assert_eq(rb_corpus_check(&t, NULL, &r, NULL), RB_OK);
    cr_assert_eq(r.shadowed, 1);
    cr_assert_eq(r.possibly_shadowed, 1);
    cr_expect_eq(r.shadows[0].route, 1);
    cr_expect(!r.shadows[0].possible);
    cr_expect_eq(r.shadows[0].by, 0); /* the most general better route: route 0 */
    cr_expect_eq(r.shadows[1].route, 3);
    cr_expect(r.shadows[1].possible);
    cr_expect_eq(r.shadows[1].by, 2);
    cr_expect_eq(r.sampled, 1);
    rb_check_report_free(&r);
    rb_route_table_free(&t);
}

/* ---- shadowing against linear, on random tables ------------------------------------------- */

static const char *const seg_pool[] = {"a", "b", "", ":P", "*", "**", "a*", "*R"};

/* A random pattern over a small alphabet, so routes overlap often. */
static size_t random_pattern(rb_rng *rng, char *buf)
{
    size_t n = 1 + rb_rng_below(rng, 3), w = 0;
    for (size_t i = 0; i < n; i++) {
        const char *s = seg_pool[rb_rng_below(rng, 8)];
        if (s[0] == '*' && s[1] == 'R' && i + 1 != n) s = "b"; /* catch-all: last only */
        buf[w++] = '/';
        if (s[0] == ':' || (s[0] == '*' && s[1] == 'R')) {
            w += (size_t)sprintf(buf + w, "%c%c%zu", s[0], s[1] == 'R' ? 'r' : 'p', i);
        } else {
            memcpy(buf + w, s, strlen(s));
            w += strlen(s);
        }
    }
    return w;
}

/* Calls fn for every path of 1..4 segments over {a, b, "", z}. */
static const char *const path_alphabet[] = {"a", "b", "", "z"};

Test(corpus_check, shadow_decisions_agree_with_linear_on_random_tables)
{
    rb_rng rng;
    rb_rng_seed(&rng, 2024);
    size_t decided = 0, shadowed = 0, witnesses = 0;
    for (int set = 0; set < 300; set++) {
        rb_route_table t = {0};
        size_t n = 6 + rb_rng_below(&rng, 7);
        for (size_t i = 0; i < n; i++) {
            char p[64];
            size_t len = random_pattern(&rng, p);
            uint64_t mm = rb_rng_below(&rng, 6);
            int method = mm < 3 ? RB_GET : mm < 5 ? RB_POST : RB_ANY;
            cr_assert_eq(rb_route_table_append(&t, method, p, len, i + 1), RB_OK);
        }
        rb_shape_tree st;
        rb_error err;
        cr_assert_eq(rb_shape_tree_build(&t, &st, &err), RB_OK, "%s", err.message);
        rb_shadow_ctx *ctx;
        cr_assert_eq(rb_shadow_ctx_new(&st, NULL, &ctx), RB_OK);
        rb_router *lin = full_linear(&t, &st);
        for (uint32_t r = 0; r < t.count; r++) {
            if (st.dup_of[r] != RB_ST_NONE) continue;
            rb_shadow_result res;
            cr_assert_eq(rb_shadow_decide(ctx, r, &res, NULL), RB_OK);
            decided++;
            char ctxname[96];
            snprintf(ctxname, sizeof ctxname, "set %d", set);
            if (res.verdict == RB_NOT_SHADOWED) {
                witnesses++;
                expect_witness(&t, lin, r, &res, ctxname);
                continue;
            }
            if (res.verdict != RB_SHADOWED) continue;
            shadowed++;
            /* no path over the alphabet may be won by r, for any method */
            char path[64];
            for (size_t len = 1; len <= 4; len++) {
                size_t total = 1;
                for (size_t k = 0; k < len; k++) total *= 4;
                for (size_t code = 0; code < total; code++) {
                    size_t w = 0, x = code;
                    for (size_t k = 0; k < len; k++, x /= 4) {
                        const char *s = path_alphabet[x % 4];
                        path[w++] = '/';
                        memcpy(path + w, s, strlen(s));
                        w += strlen(s);
                    }
                    for (int m = 0; m < RB_METHOD_COUNT; m++) {
                        rb_match mt;
                        rb_router_lookup(lin, m, path, w, &mt);
                        cr_expect(!(mt.outcome == RB_FOUND && mt.route_id == r),
                                  "set %d: route %u (%s %.*s) said shadowed but wins %s %.*s", set,
                                  r, rb_method_name(t.routes[r].method), (int)t.routes[r].len,
                                  rb_route_pattern(&t, r), rb_method_name(m), (int)w, path);
                    }
                }
            }
        }
        rb_router_destroy(lin);
        rb_shadow_ctx_free(ctx);
        rb_shape_tree_free(&st);
        rb_route_table_free(&t);
    }
    cr_log_info("%zu routes decided: %zu shadowed, %zu witnesses", decided, shadowed, witnesses);
    /* the sets exercise both answers */
    cr_expect_gt(shadowed, 60, "only %zu shadowed of %zu", shadowed, decided);
    cr_expect_gt(witnesses, 1000, "only %zu witnesses of %zu", witnesses, decided);
}

/* ---- the CLI --------------------------------------------------------------------------------- */

static int run(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(corpus_check, cli_json_and_exit_status)
{
    char dir[] = "/tmp/rb_check_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char routes[600], json[600], cmd[2048];
    snprintf(routes, sizeof routes, "%s/planted.routes", dir);
    snprintf(json, sizeof json, "%s/out.json", dir);
    char *text = planted_reuse();
    rb_error err;
    cr_assert_eq(rb_file_write_atomic(routes, text, strlen(text), &err), RB_OK, "%s", err.message);
    free(text);
    snprintf(cmd, sizeof cmd, "'%s/routebench' corpus check %s --json --min-unique 10000 > %s",
             RB_BINARY_DIR, routes, json);
    cr_expect_eq(run(cmd), 1, "duplicates found: exit 1");

    char *out;
    size_t len;
    cr_assert_eq(rb_file_read(json, &out, &len, &err), RB_OK, "%s", err.message);
    cJSON *o = cJSON_ParseWithLength(out, len);
    free(out);
    cr_assert_not_null(o);
    cr_expect_eq(cJSON_GetObjectItem(o, "routes")->valuedouble, 10000);
    cr_expect_eq(cJSON_GetObjectItem(o, "shape_duplicates")->valuedouble, 9995);
    cr_expect_eq(cJSON_GetObjectItem(o, "exact_duplicates")->valuedouble, 1999);
    cr_expect_eq(cJSON_GetObjectItem(o, "distinct_routes")->valuedouble, 5);
    cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(o, "ok")));
    /* both line numbers: the header shifts lines to route id + 2 */
    cJSON *shape = cJSON_GetObjectItem(o, "shape");
    cr_assert_eq(cJSON_GetArraySize(shape), 9995);
    cJSON *first = cJSON_GetArrayItem(shape, 0);
    cr_expect_eq(cJSON_GetObjectItem(first, "line")->valuedouble, 7);
    cr_expect_eq(cJSON_GetObjectItem(first, "earlier_line")->valuedouble, 2);
    cJSON *exact = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "exact"), 0);
    cr_expect_eq(cJSON_GetObjectItem(exact, "line")->valuedouble, 10);
    cr_expect_eq(cJSON_GetObjectItem(exact, "earlier_line")->valuedouble, 5);
    cJSON_Delete(o);

    /* a clean table: exit 0; --min-unique above its size: exit 1 */
    const char *clean = "GET /a\nGET /a/:b\n";
    cr_assert_eq(rb_file_write_atomic(routes, clean, strlen(clean), &err), RB_OK);
    snprintf(cmd, sizeof cmd, "'%s/routebench' corpus check %s > /dev/null", RB_BINARY_DIR, routes);
    cr_expect_eq(run(cmd), 0);
    snprintf(cmd, sizeof cmd, "'%s/routebench' corpus check %s --min-unique 3 > /dev/null",
             RB_BINARY_DIR, routes);
    cr_expect_eq(run(cmd), 1);
    /* input errors: exit 2 */
    snprintf(cmd, sizeof cmd, "'%s/routebench' corpus check %s/missing.routes 2>/dev/null",
             RB_BINARY_DIR, dir);
    cr_expect_eq(run(cmd), 2);
    const char *bad = "GET /a/{b\n";
    cr_assert_eq(rb_file_write_atomic(routes, bad, strlen(bad), &err), RB_OK);
    snprintf(cmd, sizeof cmd, "'%s/routebench' corpus check %s 2>/dev/null", RB_BINARY_DIR, routes);
    cr_expect_eq(run(cmd), 2);
    remove(routes);
    remove(json);
    rmdir(dir);
}

Test(corpus_check, shipped_corpora_are_clean_but_semantics)
{
    for (size_t i = 0; i < rb_shipped_count(); i++) {
        const char *name = rb_shipped_name(i);
        if (strcmp(name, "semantics") == 0) continue; /* below */
        char path[512];
        rbt_data_path(name, "routes", path, sizeof path);
        rb_route_table t;
        rb_error err;
        cr_assert_eq(rb_route_table_read(path, &t, &err), RB_OK, "%s", err.message);
        rb_check_report r;
        cr_assert_eq(rb_corpus_check(&t, NULL, &r, &err), RB_OK, "%s", err.message);
        cr_expect_eq(r.shape_duplicates + r.shadowed + r.possibly_shadowed, 0, "%s", name);
        cr_expect_eq(r.distinct_routes, t.count);
        rb_check_report_free(&r);
        rb_route_table_free(&t);
    }
    /* semantics.routes holds edge cases on purpose: its catch-all under /p
     * loses every path to the '**' beside it, and its glob *.json every path
     * to the param beside it */
    char path[512];
    snprintf(path, sizeof path, "%s/corpus/data/semantics.routes", RB_SOURCE_DIR);
    rb_route_table t;
    cr_assert_eq(rb_route_table_read(path, &t, NULL), RB_OK);
    rb_check_report r;
    cr_assert_eq(rb_corpus_check(&t, NULL, &r, NULL), RB_OK);
    cr_expect_eq(r.shadowed, 1);
    cr_expect_eq(r.possibly_shadowed, 1);
    rb_check_report_free(&r);
    rb_route_table_free(&t);
}

/* ---- regressions (one per fixed bug, cause in a line) ------------------------ */

/* n random routes over 4 words, params and '**' (1 to 6 segments, GET, POST
 * or '*'): tables where many routes are shadowed by '**' routes and the
 * product automaton is large.  trailing_star: '**' may end a pattern. */
static rb_route_table star_table(uint64_t seed, size_t n, bool trailing_star)
{
    static const char *const pool[] = {"w0", "w1", "w2", "w3", ":p", "**", ":p", "**"};
    static const int methods[] = {RB_GET, RB_GET, RB_POST, RB_ANY};
    rb_rng rng;
    rb_rng_seed(&rng, seed);
    rb_route_table t = {0};
    for (size_t i = 0; i < n; i++) {
        char pat[128];
        size_t len = 0, d = 1 + rb_rng_below(&rng, 6);
        for (size_t k = 0; k < d; k++) {
            const char *s = pool[rb_rng_below(&rng, 8)];
            if (!trailing_star && k + 1 == d && s[0] == '*') s = ":p";
            len += (size_t)(s[0] == ':' ? snprintf(pat + len, sizeof pat - len, "/:p%zu", k)
                                        : snprintf(pat + len, sizeof pat - len, "/%s", s));
        }
        cr_assert_eq(rb_route_table_append(&t, methods[rb_rng_below(&rng, 4)], pat, len, i + 1),
                     RB_OK);
    }
    return t;
}

/* 28. Superlinear check: on tables mixing '**' and params (512 routes 0.26
 *     s, 1,024 still running after 60 s) routes shadowed by a '**' route
 *     made the exact search explore its whole state cap, each state costing
 *     a sort of a large state set, and the sampling after it too.  Cause: no
 *     pruning, no budget for the whole check.  Now states from which a
 *     better '**' (or catch-all) route takes every path are skipped (exact:
 *     such tables are decided with no "possibly"), state sets are deduplicated
 *     and radix-sorted, and the whole check has a work budget linear in the
 *     table: what it cannot decide within it is "possibly shadowed". */
Test(corpus_check, regression_28_star_tables_are_checked_in_bounded_work, .timeout = 120)
{
    for (int trailing = 1; trailing >= 0; trailing--) {
        rb_route_table t = star_table(1, 1024, trailing);
        rb_check_report r;
        rb_error err;
        cr_assert_eq(rb_corpus_check(&t, NULL, &r, &err), RB_OK, "%s", err.message);
        cr_log_info("'**' table (trailing '**' %d): %zu shadowed, %zu possibly, %llu work units",
                    trailing, r.shadowed, r.possibly_shadowed, (unsigned long long)r.work);
        cr_expect_gt(r.shadowed, 50u);
        if (trailing) /* the pruning decides nearly all */
            cr_expect_leq(r.possibly_shadowed * 100, r.shadowed, "%zu possibly shadowed",
                          r.possibly_shadowed);
        cr_expect_eq(r.budget, RB_CHECK_WORK_BASE + RB_CHECK_WORK_PER_ROUTE * 1024u);
        /* a route's share is checked before each state it adds and each
         * sample: it can pass its share by one step's work at most */
        cr_expect_leq(r.work, r.budget + 1024u * 4u * 1024u, "%llu units",
                      (unsigned long long)r.work);
        cr_expect_leq(r.over_budget, r.possibly_shadowed);
        rb_check_report_free(&r);
        rb_route_table_free(&t);
    }
}

/* n random routes over 4 words, params, '**', templates and globs (1 to 6
 * segments, GET, POST or '*'): many routes are sampled (templates, globs)
 * and most paths have many candidates (routes under '**' or a param). */
static rb_route_table wild_mix_table(uint64_t seed, size_t n)
{
    static const char *const pool[] = {"w0", "w1", "w2",       "w3",    ":p", "**",
                                       ":p", "**", "{t}.json", "*.css", "a*", "{t}-{u}"};
    static const int methods[] = {RB_GET, RB_GET, RB_POST, RB_ANY};
    rb_rng rng;
    rb_rng_seed(&rng, seed);
    rb_route_table t = {0};
    for (size_t i = 0; i < n; i++) {
        char pat[256];
        size_t len = 0, d = 1 + rb_rng_below(&rng, 6);
        for (size_t k = 0; k < d; k++) {
            const char *s = pool[rb_rng_below(&rng, sizeof pool / sizeof pool[0])];
            if (s[0] == ':')
                len += (size_t)snprintf(pat + len, sizeof pat - len, "/:p%zu", k);
            else if (s[0] == '{' && s[3] == '.')
                len += (size_t)snprintf(pat + len, sizeof pat - len, "/{t%zu}.json", k);
            else if (s[0] == '{')
                len += (size_t)snprintf(pat + len, sizeof pat - len, "/{t%zu}-{u%zu}", k, k);
            else
                len += (size_t)snprintf(pat + len, sizeof pat - len, "/%s", s);
        }
        cr_assert_eq(rb_route_table_append(&t, methods[rb_rng_below(&rng, 4)], pat, len, i + 1),
                     RB_OK);
    }
    return t;
}

/* 140. Superlinear check on tables mixing templates with globs and '**'
 *     (300 routes 0.06 s, 1,180 16-33 s, 4,000 over 120 s): the budget
 *     counted a sampled lookup as one unit per candidate route, but each
 *     candidate was parsed and added to a fresh linear router (about 2 us,
 *     a hundred units' worth), and the candidate search itself was not
 *     counted.  Now the oracle counts what a lookup costs (states searched,
 *     routes added at RB_ORACLE_ADD_UNITS each, routes tried), and answers
 *     from one linear router of the whole table when that is cheaper; what
 *     the budget cannot decide is "possibly shadowed". */
Test(corpus_check, regression_140_wild_mix_tables_keep_the_work_budget)
{
    rb_route_table t = wild_mix_table(1, 1200);
    rb_check_options opt;
    rb_check_options_init(&opt);
    opt.max_work = UINT64_C(1) << 24; /* a small budget: the table needs more */
    rb_check_report r;
    rb_error err;
    cr_assert_eq(rb_corpus_check(&t, &opt, &r, &err), RB_OK, "%s", err.message);
    cr_expect_gt(r.sampled, 300u);
    /* every route added to a router and every state searched is in the work */
    cr_expect_geq(r.work, r.routes_added * RB_ORACLE_ADD_UNITS + r.states_stepped,
                  "%llu units for %llu routes added and %llu states", (unsigned long long)r.work,
                  (unsigned long long)r.routes_added, (unsigned long long)r.states_stepped);
    /* ... and the work stays within the budget, give or take the last
     * lookup (at most the whole table's build and one try of every route) */
    cr_expect_leq(r.work, opt.max_work + 1200u * (RB_ORACLE_ADD_UNITS + 1u) * 2u, "%llu units",
                  (unsigned long long)r.work);
    cr_expect_gt(r.over_budget, 0u, "the budget decided some routes");
    cr_expect_leq(r.over_budget, r.possibly_shadowed);
    rb_check_report_free(&r);
    rb_route_table_free(&t);
}

/* 141. `corpus check` printed "clean" when routes had been checked only by
 *     sampling (--json said sampled: 99): the plain verdict now says so, in
 *     the same words as the JSON's "verdict". */
Test(corpus_check, regression_141_plain_verdict_names_the_sampled_routes)
{
    char routes[1024], cmd[4096];
    rbt_data_path("twilio", "routes", routes, sizeof routes);
    snprintf(cmd, sizeof cmd, "'%s/routebench' corpus check '%s' | tail -1", RB_BINARY_DIR, routes);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    char line[512] = "";
    cr_assert_not_null(fgets(line, sizeof line, p));
    cr_expect_eq(pclose(p), 0, "clean: exit 0");
    line[strcspn(line, "\n")] = '\0';
    snprintf(cmd, sizeof cmd, "'%s/routebench' corpus check '%s' --json", RB_BINARY_DIR, routes);
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    static char json[1 << 20];
    size_t n = fread(json, 1, sizeof json - 1, p);
    pclose(p);
    cJSON *o = cJSON_ParseWithLength(json, n);
    cr_assert_not_null(o);
    double sampled = cJSON_GetObjectItem(o, "sampled")->valuedouble;
    cr_assert_gt(sampled, 0, "Twilio's templates are sampled");
    char want[256];
    /* Twilio's 2010 API: 197 operations */
    snprintf(want, sizeof want, "clean for 197 routes; %.0f routes checked by sampling", sampled);
    cr_expect_str_eq(line, want);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(o, "verdict")), want);
    cJSON_Delete(o);
}
