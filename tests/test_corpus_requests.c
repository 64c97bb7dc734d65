/*
 * test_corpus_requests.c — request tables (corpus/reqgen.h) and random
 * paths (corpus/fill.h).
 *
 * Rules checked: EXPECTED equals linear's answer on the whole table (for
 * generated and shipped tables, including one with shadowed routes); the
 * miss count is exact and misses are not found; some requests get 405;
 * hits taken by a higher-priority route are counted; the same seed gives
 * the same table; Zipf concentrates picks; filled values never equal a
 * static word; tables with shape duplicates are refused; written tables
 * read back identically.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "fill.h"
#include "generate.h"
#include "rb_test.h"
#include "reqgen.h"
#include "shipped.h"
#include "shape_tree.h"
#include "verify.h"

extern const rb_router_ops rb__linear_ops;

/* Generator v1: the exact counts below were worked out on its tables (a
 * wrong-method draw on a '*' route is a plain hit), and v1 never changes. */
static rb_route_table generated(size_t n, int shape)
{
    rb_gen_config c = {.routes = n, .seed = 11, .shape = shape, .generator = RB_GEN_V1};
    rb_route_table t;
    rb_error err;
    cr_assert_eq(rb_corpus_generate(&c, &t, &err), RB_OK, "%s", err.message);
    return t;
}

static rb_request_table make(const rb_route_table *t, size_t count, uint32_t miss_ppm,
                             uint64_t seed, int dist, rb_reqgen_report *rep)
{
    rb_reqgen_config c = {count, miss_ppm, 50000, seed, dist};
    rb_request_table q;
    rb_error err;
    cr_assert_eq(rb_requests_generate(t, &c, &q, rep, &err), RB_OK, "%s", err.message);
    cr_assert_eq(q.count, count);
    return q;
}

/* Every EXPECTED equals linear on the whole table (rb_verify builds it). */
static void expect_linear_agrees(const rb_route_table *t, const rb_request_table *q,
                                 const char *what)
{
    rb_verify_report v;
    rb_error err;
    cr_assert_eq(rb_verify(&rb__linear_ops, t, what, q, &v, &err), RB_OK, "%s", err.message);
    cr_expect_eq(v.agree_expected, q->count, "%s: %zu/%zu agree with linear", what,
                 v.agree_expected, q->count);
}

static size_t count_expected(const rb_request_table *q, int32_t x)
{
    size_t n = 0;
    for (size_t i = 0; i < q->count; i++) n += q->reqs[i].expected == x;
    return n;
}

Test(corpus_requests, expected_is_linear_and_misses_are_exact)
{
    const int shapes[] = {RB_GEN_MIXED, RB_GEN_CATCHALL, RB_GEN_GLOB};
    for (size_t s = 0; s < 3; s++) {
        rb_route_table t = generated(2000, shapes[s]);
        rb_reqgen_report rep;
        rb_request_table q = make(&t, 2000, 250000, 5, RB_DIST_UNIFORM, &rep);
        expect_linear_agrees(&t, &q, rb_gen_shape_name(shapes[s]));
        /* exactly round(2000 x 0.25) misses, all of them found by nothing */
        cr_expect_eq(rep.misses, 500);
        cr_expect_eq(rep.misses_matched, 0);
        cr_expect_eq(count_expected(&q, RB_EXPECT_NOT_FOUND), 500);
        /* round(1500 x 0.05) hits with another method; some are 405 */
        cr_expect_eq(rep.wrong_method, 75);
        cr_expect_gt(count_expected(&q, RB_EXPECT_NOT_ALLOWED), 0);
        cr_expect_eq(rep.expect_not_allowed, count_expected(&q, RB_EXPECT_NOT_ALLOWED));
        cr_expect_eq(rep.hits + rep.wrong_method + rep.misses, 2000);
        /* nothing is shadowed, but a '**' that takes no segment leaves the
         * path of its prefix, whose own route may take it */
        if (shapes[s] == RB_GEN_GLOB)
            cr_expect_lt(rep.hits_taken, rep.hits / 50, "%zu taken", rep.hits_taken);
        else
            cr_expect_eq(rep.hits_taken, 0, "%zu taken", rep.hits_taken);
        rb_request_table_free(&q);
        rb_route_table_free(&t);
    }
}

Test(corpus_requests, miss_ratio_zero_and_one)
{
    rb_route_table t = generated(500, RB_GEN_MIXED);
    rb_reqgen_report rep;
    rb_request_table q = make(&t, 1000, 0, 1, RB_DIST_UNIFORM, &rep);
    cr_expect_eq(rep.misses, 0);
    cr_expect_eq(count_expected(&q, RB_EXPECT_NOT_FOUND), 0);
    rb_request_table_free(&q);
    q = make(&t, 1000, 1000000, 1, RB_DIST_UNIFORM, &rep);
    cr_expect_eq(rep.misses, 1000);
    cr_expect_eq(count_expected(&q, RB_EXPECT_NOT_FOUND), 1000);
    rb_request_table_free(&q);
    rb_route_table_free(&t);
}

Test(corpus_requests, shipped_tables_agree_with_linear)
{
    for (size_t i = 0; i < rb_shipped_count(); i++) {
        char path[512];
        rbt_data_path(rb_shipped_name(i), "routes", path, sizeof path);
        rb_route_table t;
        rb_error err;
        cr_assert_eq(rb_route_table_read(path, &t, &err), RB_OK, "%s", err.message);
        rb_reqgen_report rep;
        rb_request_table q = make(&t, 1000, 100000, 3, RB_DIST_UNIFORM, &rep);
        expect_linear_agrees(&t, &q, rb_shipped_name(i));
        rb_request_table_free(&q);
        rb_route_table_free(&t);
    }
}

Test(corpus_requests, hits_taken_by_a_higher_priority_route_are_counted)
{
    /* every path of route 1 is taken by route 0 ('**' before a catch-all),
     * so every request expects route 0 and the hits picked for route 1 are
     * all "taken" */
    rb_route_table t = rbt_parse_routes("GET /x/**\nGET /x/*rest\n");
    rb_reqgen_config c = {1000, 0, 0, 9, RB_DIST_UNIFORM};
    rb_request_table q;
    rb_reqgen_report rep;
    cr_assert_eq(rb_requests_generate(&t, &c, &q, &rep, NULL), RB_OK);
    cr_expect_eq(count_expected(&q, 0), 1000);
    cr_expect_gt(rep.hits_taken, 300);
    cr_expect_lt(rep.hits_taken, 700);
    expect_linear_agrees(&t, &q, "x");
    rb_request_table_free(&q);
    rb_route_table_free(&t);
}

Test(corpus_requests, under_a_root_globstar_misses_cannot_escape)
{
    rb_route_table t = rbt_parse_routes("GET /**\n");
    rb_reqgen_config c = {100, 500000, 0, 1, RB_DIST_UNIFORM};
    rb_request_table q;
    rb_reqgen_report rep;
    cr_assert_eq(rb_requests_generate(&t, &c, &q, &rep, NULL), RB_OK);
    cr_expect_eq(rep.misses, 50);
    cr_expect_eq(rep.misses_matched, 50, "'/**' matches every path");
    expect_linear_agrees(&t, &q, "root globstar");
    rb_request_table_free(&q);
    rb_route_table_free(&t);
}

Test(corpus_requests, same_seed_same_table)
{
    rb_route_table t = generated(1000, RB_GEN_GLOB);
    rb_request_table a = make(&t, 1000, 100000, 4, RB_DIST_ZIPF, NULL);
    rb_request_table b = make(&t, 1000, 100000, 4, RB_DIST_ZIPF, NULL);
    rb_request_table c = make(&t, 1000, 100000, 5, RB_DIST_ZIPF, NULL);
    cr_expect_eq(rb_request_table_fingerprint(&a), rb_request_table_fingerprint(&b));
    bool same = a.count == b.count;
    for (size_t i = 0; same && i < a.count; i++)
        same = a.reqs[i].method == b.reqs[i].method && a.reqs[i].len == b.reqs[i].len &&
               a.reqs[i].expected == b.reqs[i].expected &&
               memcmp(rb_request_path(&a, i), rb_request_path(&b, i), a.reqs[i].len) == 0;
    cr_expect(same);
    cr_expect_neq(rb_request_table_fingerprint(&a), rb_request_table_fingerprint(&c));
    rb_request_table_free(&a);
    rb_request_table_free(&b);
    rb_request_table_free(&c);
    rb_route_table_free(&t);
}

static size_t most_frequent(const rb_request_table *q, size_t nroutes)
{
    size_t *n = calloc(nroutes, sizeof *n), best = 0;
    cr_assert_not_null(n);
    for (size_t i = 0; i < q->count; i++)
        if (q->reqs[i].expected >= 0) n[q->reqs[i].expected]++;
    for (size_t r = 0; r < nroutes; r++)
        if (n[r] > best) best = n[r];
    free(n);
    return best;
}

Test(corpus_requests, zipf_concentrates_picks)
{
    /* 1,000 routes, 4,000 hits: uniform gives each about 4; Zipf gives the
     * top route 1/H(1000) = 1/7.49 of the picks, about 530 */
    rb_route_table t = generated(1000, RB_GEN_STATIC);
    rb_reqgen_config c = {4000, 0, 0, 2, RB_DIST_UNIFORM};
    rb_request_table u, z;
    cr_assert_eq(rb_requests_generate(&t, &c, &u, NULL, NULL), RB_OK);
    c.dist = RB_DIST_ZIPF;
    cr_assert_eq(rb_requests_generate(&t, &c, &z, NULL, NULL), RB_OK);
    size_t top_u = most_frequent(&u, t.count), top_z = most_frequent(&z, t.count);
    cr_expect_lt(top_u, 25, "uniform top %zu", top_u);
    cr_expect_gt(top_z, 400, "zipf top %zu", top_z);
    cr_expect_lt(top_z, 700, "zipf top %zu", top_z);
    rb_request_table_free(&u);
    rb_request_table_free(&z);
    rb_route_table_free(&t);
    cr_expect_eq(rb_req_dist_parse("zipf"), RB_DIST_ZIPF);
    cr_expect_eq(rb_req_dist_parse("normal"), -1);
}

Test(corpus_requests, filled_values_never_equal_a_static_word)
{
    /* every word of one and two bytes of [a-z0-9] is a static sibling of
     * the param: a value equal to one would be taken by it */
    rb_buf b = {0};
    const char *al = "abcdefghijklmnopqrstuvwxyz0123456789";
    for (size_t i = 0; i < 36; i++) {
        rb_buf_printf(&b, "GET /v/%c\n", al[i]);
        for (size_t j = 0; j < 36; j++) rb_buf_printf(&b, "GET /v/%c%c\n", al[i], al[j]);
    }
    rb_buf_puts(&b, "GET /v/:p\nGET /w/*rest\nGET /g/*\n");
    rb_route_table t = rbt_parse_routes(b.data);
    rb_buf_free(&b);
    rb_shape_tree st;
    cr_assert_eq(rb_shape_tree_build(&t, &st, NULL), RB_OK);
    rb_router *lin;
    cr_assert_eq(rb_route_table_build_router(&t, "v", &rb__linear_ops, NULL, &lin, NULL), RB_OK);
    rb_rng rng;
    rb_rng_seed(&rng, 77);
    for (uint32_t r = (uint32_t)t.count - 3; r < t.count; r++) {
        for (int k = 0; k < 2000; k++) {
            char path[256];
            size_t len = rb_fill_path(&st, r, &rng, path, sizeof path);
            cr_assert_gt(len, 0);
            rb_match m;
            rb_router_lookup(lin, RB_GET, path, len, &m);
            cr_assert(m.outcome == RB_FOUND && m.route_id == r, "%.*s went to %u, not %u", (int)len,
                      path, m.route_id, r);
        }
    }
    rb_router_destroy(lin);
    rb_shape_tree_free(&st);
    rb_route_table_free(&t);
}

Test(corpus_requests, filled_globs_match_their_glob)
{
    rb_route_table t = rbt_parse_routes("GET /f/img-??.png\nGET /f/[a-c]*\nGET /f/[!a-c]*.txt\n"
                                        "GET /f/x*y?z\nGET /v2/**/manifests/:ref\n");
    rb_shape_tree st;
    cr_assert_eq(rb_shape_tree_build(&t, &st, NULL), RB_OK);
    rb_router *lin;
    cr_assert_eq(rb_route_table_build_router(&t, "f", &rb__linear_ops, NULL, &lin, NULL), RB_OK);
    rb_rng rng;
    rb_rng_seed(&rng, 5);
    for (uint32_t r = 0; r < t.count; r++) {
        for (int k = 0; k < 500; k++) {
            char path[256];
            size_t len = rb_fill_path(&st, r, &rng, path, sizeof path);
            rb_match m;
            rb_router_lookup(lin, RB_GET, path, len, &m);
            cr_assert(m.outcome == RB_FOUND, "%.*s matches nothing", (int)len, path);
        }
    }
    rb_router_destroy(lin);
    rb_shape_tree_free(&st);
    rb_route_table_free(&t);
}

Test(corpus_requests, shape_duplicates_and_bad_arguments_are_refused)
{
    rb_route_table t = rbt_parse_routes("# two\nGET /a/:x\nGET /b\nGET /a/{y}\n");
    rb_reqgen_config c = {10, 0, 0, 1, RB_DIST_UNIFORM};
    rb_request_table q;
    rb_error err;
    cr_expect_eq(rb_requests_generate(&t, &c, &q, NULL, &err), RB_EINVAL);
    cr_expect(strstr(err.message, "line 4") && strstr(err.message, "line 2"), "%s", err.message);
    rb_route_table_free(&t);

    t = rbt_parse_routes("GET /a\n");
    c.count = 0;
    cr_expect_eq(rb_requests_generate(&t, &c, &q, NULL, &err), RB_EINVAL);
    c.count = 10;
    c.miss_ppm = 1000001;
    cr_expect_eq(rb_requests_generate(&t, &c, &q, NULL, &err), RB_EINVAL);
    rb_route_table_free(&t);
    rb_route_table empty = {0};
    c.miss_ppm = 0;
    cr_expect_eq(rb_requests_generate(&empty, &c, &q, NULL, &err), RB_EINVAL);
}

static int run(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(corpus_requests, cli_writes_a_table_that_reads_back)
{
    char dir[] = "/tmp/rb_req_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char routes[600], reqs[600], cmd[2048];
    snprintf(routes, sizeof routes, "%s/github.routes", dir);
    snprintf(reqs, sizeof reqs, "%s/github.requests", dir);
    snprintf(cmd, sizeof cmd,
             "'%s/routebench' corpus requests '%s/corpus/data/github.routes' --count 777 "
             "--miss 0.2 --seed 3 --dist zipf --out %s > /dev/null",
             RB_BINARY_DIR, RB_SOURCE_DIR, reqs);
    cr_assert_eq(run(cmd), 0, "%s", cmd);
    rb_request_table got;
    rb_error err;
    cr_assert_eq(rb_request_table_read(reqs, &got, &err), RB_OK, "%s", err.message);
    cr_expect_eq(got.count, 777);

    char gh[512];
    snprintf(gh, sizeof gh, "%s/corpus/data/github.routes", RB_SOURCE_DIR);
    rb_route_table t;
    cr_assert_eq(rb_route_table_read(gh, &t, &err), RB_OK);
    rb_reqgen_config c = {777, 200000, 50000, 3, RB_DIST_ZIPF};
    rb_request_table want;
    cr_assert_eq(rb_requests_generate(&t, &c, &want, NULL, &err), RB_OK);
    cr_expect_eq(rb_request_table_fingerprint(&got), rb_request_table_fingerprint(&want));
    cr_expect_eq(count_expected(&got, RB_EXPECT_NOT_FOUND), 155); /* round(777 x 0.2) */
    expect_linear_agrees(&t, &got, "github");
    rb_request_table_free(&got);
    rb_request_table_free(&want);
    rb_route_table_free(&t);

    snprintf(cmd, sizeof cmd,
             "'%s/routebench' corpus requests '%s/corpus/data/github.routes' --miss 2 --out %s "
             "2>/dev/null",
             RB_BINARY_DIR, RB_SOURCE_DIR, reqs);
    cr_expect_eq(run(cmd), 2);
    snprintf(cmd, sizeof cmd, "'%s/routebench' corpus requests %s --out %s 2>/dev/null",
             RB_BINARY_DIR, routes, reqs);
    cr_expect_eq(run(cmd), 2, "missing routes file");
    remove(reqs);
    rmdir(dir);
}
