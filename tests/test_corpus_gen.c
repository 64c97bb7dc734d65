/*
 * test_corpus_gen.c — the corpus generator (corpus/generate.h).
 *
 * Rules checked: the same arguments give the same bytes (in process and
 * through the CLI); generator v1 still makes every corpus whose fingerprint
 * was published (in the docs and docs/results/RESULTS.md); exactly N routes come out,
 * every (method, shape) distinct; every shape at 10,000 routes passes the
 * check (no duplicates, nothing shadowed), is diverse (skeletons, depths,
 * bounded fan-out) and has the features its name promises, with both
 * generators; v2's depth peaks where the public tables' do and, at
 * 1,000,000 routes, no depth holds more than a third of the routes (v1
 * piles them at depth 8); linear agrees with the generated requests;
 * arguments that cannot hold N routes fail with a message.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "file.h"
#include "generate.h"
#include "reqgen.h"
#include "router_impl.h"
#include "shape_tree.h"
#include "verify.h"

extern const rb_router_ops rb__linear_ops;

static rb_route_table gen_with(uint32_t generator, size_t n, uint64_t seed, int shape, bool nc)
{
    rb_gen_config c = {
        .routes = n, .seed = seed, .shape = shape, .no_conflicts = nc, .generator = generator};
    rb_route_table t;
    rb_error err;
    int rc = rb_corpus_generate(&c, &t, &err);
    cr_assert_eq(rc, RB_OK, "generate v%u %zu %s%s: %s", rb_gen_generator(&c), n,
                 rb_gen_shape_name(shape), nc ? " nc" : "", err.message);
    return t;
}

static rb_route_table gen(size_t n, uint64_t seed, int shape, bool nc)
{
    return gen_with(0, n, seed, shape, nc);
}

static bool tables_equal(const rb_route_table *a, const rb_route_table *b)
{
    if (a->count != b->count) return false;
    for (size_t i = 0; i < a->count; i++) {
        if (a->routes[i].method != b->routes[i].method || a->routes[i].len != b->routes[i].len ||
            memcmp(rb_route_pattern(a, i), rb_route_pattern(b, i), a->routes[i].len) != 0)
            return false;
    }
    return true;
}

/* ---- determinism ---------------------------------------------------------------- */

Test(corpus_gen, same_arguments_give_the_same_routes)
{
    for (int shape = 0; shape < RB_GEN_SHAPE_COUNT; shape++) {
        for (int nc = 0; nc < 2; nc++) {
            rb_route_table a = gen(3000, 42, shape, nc), b = gen(3000, 42, shape, nc);
            cr_expect(tables_equal(&a, &b), "shape %s nc %d differs", rb_gen_shape_name(shape), nc);
            cr_expect_eq(rb_route_table_fingerprint(&a), rb_route_table_fingerprint(&b));
            rb_route_table_free(&a);
            rb_route_table_free(&b);
        }
    }
}

/* The fingerprints below were published (the README and bench/RESULTS.md
 * at commit 2915c948ea63) from the generator that is v1 now: v1 must make
 * the same bytes forever. */
Test(corpus_gen, v1_reproduces_published_fingerprints)
{
    static const struct {
        int shape;
        bool nc;
        size_t routes;
        uint64_t seed, fingerprint;
    } published[] = {
        {RB_GEN_MIXED, false, 10000, 1, UINT64_C(0xfe873c8132d2ac1b)},   /* README */
        {RB_GEN_STATIC, false, 10000, 42, UINT64_C(0x77f7cead7cdda10a)}, /* RESULTS.md */
        {RB_GEN_MIXED, false, 10000, 42, UINT64_C(0x16611a89b5c2dc5e)},
        {RB_GEN_MIXED, true, 10000, 42, UINT64_C(0x2e173d045d9ea706)},
        {RB_GEN_PARAMS, false, 10000, 42, UINT64_C(0x7d0cad0651742456)},
        {RB_GEN_MIXED, false, 100, 42, UINT64_C(0xa98c05444cf28f95)},
        {RB_GEN_MIXED, false, 1000, 42, UINT64_C(0x4030d2a0a8aacb4d)},
        {RB_GEN_MIXED, false, 100000, 42, UINT64_C(0xaaeae2493a8535b6)},
    };
    for (size_t i = 0; i < sizeof published / sizeof published[0]; i++) {
        rb_route_table t = gen_with(RB_GEN_V1, published[i].routes, published[i].seed,
                                    published[i].shape, published[i].nc);
        cr_expect_eq(rb_route_table_fingerprint(&t), published[i].fingerprint,
                     "v1 %s%s %zu seed %llu: xxh3:%016llx, published xxh3:%016llx",
                     rb_gen_shape_name(published[i].shape), published[i].nc ? " nc" : "",
                     published[i].routes, (unsigned long long)published[i].seed,
                     (unsigned long long)rb_route_table_fingerprint(&t),
                     (unsigned long long)published[i].fingerprint);
        rb_route_table_free(&t);
    }
    /* and the default is v2, a different table */
    rb_route_table t = gen(10000, 1, RB_GEN_MIXED, false);
    cr_expect_neq(rb_route_table_fingerprint(&t), UINT64_C(0xfe873c8132d2ac1b));
    rb_route_table_free(&t);
    rb_gen_config c = {.generator = 0};
    cr_expect_eq(rb_gen_generator(&c), RB_GEN_V2);
    c.generator = 3;
    cr_expect_eq(rb_gen_generator(&c), 0);
    cr_expect_eq(rb_gen_generator_parse("v1"), RB_GEN_V1);
    cr_expect_eq(rb_gen_generator_parse("v3"), 0);
}

Test(corpus_gen, different_seeds_give_different_routes)
{
    rb_route_table a = gen(1000, 1, RB_GEN_MIXED, false), b = gen(1000, 2, RB_GEN_MIXED, false);
    cr_expect(!tables_equal(&a, &b));
    cr_expect_neq(rb_route_table_fingerprint(&a), rb_route_table_fingerprint(&b));
    rb_route_table_free(&a);
    rb_route_table_free(&b);
}

static int run(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *path, size_t *len)
{
    char *data;
    rb_error err;
    cr_assert_eq(rb_file_read(path, &data, len, &err), RB_OK, "%s", err.message);
    return data;
}

Test(corpus_gen, cli_writes_identical_bytes_twice)
{
    char dir[] = "/tmp/rb_gen_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cmd[1024];
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd,
                 "'%s/routebench' corpus gen --routes 2000 --seed 7 --shape glob --out %s/c%d "
                 ">/dev/null",
                 RB_BINARY_DIR, dir, k);
        cr_assert_eq(run(cmd), 0, "%s", cmd);
    }
    const char *ext[] = {"routes", "requests"};
    for (int e = 0; e < 2; e++) {
        char p0[600], p1[600];
        snprintf(p0, sizeof p0, "%s/c0.%s", dir, ext[e]);
        snprintf(p1, sizeof p1, "%s/c1.%s", dir, ext[e]);
        size_t n0, n1;
        char *d0 = slurp(p0, &n0), *d1 = slurp(p1, &n1);
        cr_expect(n0 > 0 && n0 == n1 && memcmp(d0, d1, n0) == 0, "%s differs", ext[e]);
        free(d0);
        free(d1);
        remove(p0);
        remove(p1);
    }
    /* the routes file reads back as the same table the library makes */
    rb_route_table want = gen(2000, 7, RB_GEN_GLOB, false);
    snprintf(cmd, sizeof cmd,
             "'%s/routebench' corpus gen --routes 2000 --seed 7 --shape glob --out %s/c2 "
             ">/dev/null",
             RB_BINARY_DIR, dir);
    cr_assert_eq(run(cmd), 0);
    char p[600];
    snprintf(p, sizeof p, "%s/c2.routes", dir);
    rb_route_table got;
    rb_error err;
    cr_assert_eq(rb_route_table_read(p, &got, &err), RB_OK, "%s", err.message);
    cr_expect(tables_equal(&want, &got));
    rb_route_table_free(&want);
    rb_route_table_free(&got);
    remove(p);
    snprintf(p, sizeof p, "%s/c2.requests", dir);
    remove(p);
    rmdir(dir);
}

Test(corpus_gen, cli_usage_errors_exit_2)
{
    char cmd[1024];
    const char *bad[] = {
        "corpus gen --routes 0 --seed 1 --shape mixed --out /tmp/x",
        "corpus gen --routes 1000001 --seed 1 --shape mixed --out /tmp/x",
        "corpus gen --routes 10 --seed 1 --shape nope --out /tmp/x",
        "corpus gen --routes 10 --seed 1 --shape mixed",
        "corpus gen --routes 10 --seed 1 --shape mixed --out /tmp/x --bogus",
        "corpus nope",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(cmd, sizeof cmd, "'%s/routebench' %s 2>/dev/null", RB_BINARY_DIR, bad[i]);
        cr_expect_eq(run(cmd), 2, "%s", bad[i]);
    }
    const char *help[] = {"corpus --help", "corpus gen --help", "corpus requests --help",
                          "corpus check --help", "corpus import --help"};
    for (size_t i = 0; i < sizeof help / sizeof help[0]; i++) {
        snprintf(cmd, sizeof cmd, "'%s/routebench' %s >/dev/null", RB_BINARY_DIR, help[i]);
        cr_expect_eq(run(cmd), 0, "%s", help[i]);
    }
}

/* ---- exact counts, uniqueness ----------------------------------------------------- */

Test(corpus_gen, exactly_n_routes_all_distinct_and_valid)
{
    const size_t sizes[] = {1, 2, 3, 5, 8, 13, 50, 99, 257, 1000};
    for (int shape = 0; shape < RB_GEN_SHAPE_COUNT; shape++) {
        for (int nc = 0; nc < 2; nc++) {
            for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
                rb_route_table t = gen(sizes[k], 1000 + k, shape, nc);
                cr_expect_eq(t.count, sizes[k]);
                rb_shape_tree st;
                rb_error err; /* the tree parses every pattern */
                cr_assert_eq(rb_shape_tree_build(&t, &st, &err), RB_OK, "%s", err.message);
                cr_expect_eq(st.nduplicates, 0, "%s nc %d n %zu: %zu duplicates",
                             rb_gen_shape_name(shape), nc, sizes[k], st.nduplicates);
                rb_shape_tree_free(&st);
                rb_route_table_free(&t);
            }
        }
    }
}

Test(corpus_gen, impossible_arguments_fail_with_a_message)
{
    rb_route_table t;
    rb_error err;
    rb_gen_config c = {
        .routes = 1000, .seed = 1, .shape = RB_GEN_STATIC, .max_depth = 2, .fanout = 2};
    /* by hand, from the roles in generate.h: depth 2 and two children a
     * node; the root's best child is a collection (GET, POST) whose two
     * children are singular resources (GET, PUT, PATCH, DELETE):
     * 2 * (2 + 2 * 4) = 20 */
    cr_expect_eq(rb_gen_capacity(&c), 20);
    cr_expect_eq(rb_corpus_generate(&c, &t, &err), RB_EINVAL);
    cr_expect(strstr(err.message, "cannot generate 1000 unique routes") != NULL, "%s", err.message);
    cr_expect_eq(t.count, 0);
    c.routes = 20;
    cr_expect_eq(rb_corpus_generate(&c, &t, &err), RB_OK, "%s", err.message);
    cr_expect_eq(t.count, 20);
    rb_route_table_free(&t);

    c = (rb_gen_config){.routes = 0, .seed = 1, .shape = RB_GEN_MIXED};
    cr_expect_eq(rb_corpus_generate(&c, &t, &err), RB_EINVAL);
    c.routes = RB_GEN_MAX_ROUTES + 1;
    cr_expect_eq(rb_corpus_generate(&c, &t, &err), RB_EINVAL);
    c.routes = 10;
    c.shape = RB_GEN_SHAPE_COUNT;
    cr_expect_eq(rb_corpus_generate(&c, &t, &err), RB_EINVAL);
    cr_expect_eq(rb_gen_shape_parse("glob"), RB_GEN_GLOB);
    cr_expect_eq(rb_gen_shape_parse("globs"), -1);
}

/* ---- every shape at 10,000 routes -------------------------------------------------- */

typedef struct features {
    size_t params_routes, catchall_routes, glob_routes, globstar_routes, template_routes,
        any_method;
    size_t methods[RB_METHOD_COUNT + 1];
    bool conflict;    /* some prefix has a static and a param child */
    bool mixed_kinds; /* some prefix has children of two kinds */
} features;

static features survey(const rb_route_table *t)
{
    features f;
    memset(&f, 0, sizeof f);
    for (size_t i = 0; i < t->count; i++) {
        rb_pattern p;
        cr_assert_eq(rb_pattern_parse(rb_route_pattern(t, i), t->routes[i].len, NULL, &p, NULL),
                     RB_OK);
        bool gs = false;
        for (uint32_t s = 0; s < p.nsegs; s++) gs = gs || p.segs[s].kind == RB_SEG_GLOBSTAR;
        f.params_routes += (p.features & RB_FEAT_PARAMS) != 0;
        f.catchall_routes += (p.features & RB_FEAT_CATCHALL) != 0;
        f.glob_routes += (p.features & RB_FEAT_GLOB) != 0 && !gs;
        f.globstar_routes += gs;
        f.template_routes += (p.features & RB_FEAT_TEMPLATE) != 0;
        f.methods[t->routes[i].method]++;
        rb_pattern_free(&p);
    }
    rb_shape_tree st;
    cr_assert_eq(rb_shape_tree_build(t, &st, NULL), RB_OK);
    for (size_t n = 0; n < st.nnodes; n++) {
        bool has_param = false;
        unsigned kinds = 0;
        for (uint32_t c = st.nodes[n].first_wild; c != RB_ST_NONE; c = st.nodes[c].next_wild) {
            has_param = has_param || st.nodes[c].kind == RB_SEG_PARAM;
            kinds |= 1u << st.nodes[c].kind;
        }
        size_t wild = 0;
        for (uint32_t c = st.nodes[n].first_wild; c != RB_ST_NONE; c = st.nodes[c].next_wild)
            wild++;
        bool has_static = st.nodes[n].nchildren > wild;
        if (has_static) kinds |= 1u;
        f.conflict = f.conflict || (has_param && has_static);
        /* two kinds, or a param / catch-all / '**' with any sibling */
        bool single_kind = (kinds & (kinds - 1)) == 0;
        bool lonely = kinds & (1u << RB_SEG_PARAM | 1u << RB_SEG_CATCHALL | 1u << RB_SEG_GLOBSTAR)
                          ? st.nodes[n].nchildren == 1
                          : true;
        f.mixed_kinds = f.mixed_kinds || !single_kind || !lonely;
    }
    rb_shape_tree_free(&st);
    f.any_method = f.methods[RB_ANY];
    return f;
}

/* The rule of the *_10k_* tests: `corpus gen --routes 10000` of each shape
 * (seed 1, with and without static/param conflicts, generators v1 and v2)
 * gives 10,000 distinct (method, shape) routes, none shadowed, thousands
 * of shapes, bounded fan-out and depth 1..8 (v2: peaking at 3-5), the
 * features the shape promises, and requests on which linear agrees with
 * EXPECTED. */
static void check_shape_10k(int shape, bool nc, uint32_t generator)
{
    const char *name = rb_gen_shape_name(shape);
    rb_route_table t = gen_with(generator, 10000, 1, shape, nc);
    cr_assert_eq(t.count, 10000);

    /* the check: unique, nothing shadowed, diverse */
    rb_check_report rep;
    rb_error err;
    cr_assert_eq(rb_corpus_check(&t, NULL, &rep, &err), RB_OK, "%s", err.message);
    cr_expect_eq(rep.distinct_routes, 10000, "%s nc %d", name, nc);
    cr_expect_eq(rep.exact_duplicates, 0);
    cr_expect_eq(rep.shape_duplicates, 0);
    cr_expect_eq(rep.shadowed, 0, "%s nc %d: %zu shadowed", name, nc, rep.shadowed);
    cr_expect_eq(rep.possibly_shadowed, 0, "%s nc %d: %zu possibly shadowed", name, nc,
                 rep.possibly_shadowed);
    /* skeletons: a static tree has one per depth (8); the others well above */
    size_t floor = shape == RB_GEN_STATIC ? 8 : 40;
    cr_expect_geq(rep.distinct_skeletons, floor, "%s nc %d: %zu skeletons", name, nc,
                  rep.distinct_skeletons);
    cr_expect_geq(rep.distinct_shapes, 3000, "%s nc %d: %zu shapes", name, nc, rep.distinct_shapes);
    /* bounded: at most 32 children of a prefix (v2 at 10,000 routes widens
     * by floor(sqrt(10,000 / 1,000)) = 3: 96), at most 4 methods each; the
     * templates shape adds a token beside each child whose routes it writes
     * as templates: w.{format} beside a word, up to four forms beside the
     * item, so at most (fan - 1) * 2 + 5 */
    size_t fan = generator == RB_GEN_V1 ? 32 : 96;
    size_t max_fanout = shape == RB_GEN_TEMPLATES ? (fan - 1) * 2 + 5 : fan;
    cr_expect_leq(rep.max_fanout, max_fanout, "%s nc %d: fan-out %zu", name, nc, rep.max_fanout);
    cr_expect_leq(rep.max_behind, 4 * fan, "%s nc %d: %zu behind one prefix", name, nc,
                  rep.max_behind);
    size_t min_depth = shape == RB_GEN_PARAMS ? 2 : 1;
    cr_expect_leq(rep.min_depth, min_depth, "%s nc %d: min depth %zu", name, nc, rep.min_depth);
    cr_expect_leq(rep.max_depth, 8, "%s nc %d: max depth %zu", name, nc, rep.max_depth);
    /* v1 reaches depth 8 with every depth in between; v2 every depth up to 7 */
    size_t deepest = generator == RB_GEN_V1 ? 8 : 7;
    for (size_t d = min_depth + 1; d <= deepest; d++)
        cr_expect_gt(rep.depth[d], 0, "%s nc %d: no route of depth %zu", name, nc, d);
    if (generator != RB_GEN_V1) {
        /* v2 peaks where the public tables do (GitHub 4, Discord 3-4,
         * Twilio 5-6), with a thin tail at depth 8 */
        size_t mode = 1;
        for (size_t d = 1; d < RB_CHECK_DEPTHS; d++)
            if (rep.depth[d] > rep.depth[mode]) mode = d;
        cr_expect(mode >= 3 && mode <= 5, "%s nc %d: most routes at depth %zu", name, nc, mode);
        cr_expect_lt(rep.depth[8], 10000 / 5, "%s nc %d: %zu routes at depth 8", name, nc,
                     rep.depth[8]);
    }
    rb_check_report_free(&rep);

    /* what the shape promises */
    features f = survey(&t);
    switch (shape) {
    case RB_GEN_STATIC:
        cr_expect_eq(f.params_routes + f.catchall_routes + f.glob_routes + f.globstar_routes, 0);
        break;
    case RB_GEN_PARAMS:
        cr_expect_eq(f.params_routes, 10000, "every route has a param");
        break;
    case RB_GEN_CATCHALL:
        cr_expect_gt(f.catchall_routes, 20, "%zu catch-alls", f.catchall_routes);
        break;
    case RB_GEN_GLOB:
        cr_expect_gt(f.glob_routes, 50, "%zu glob routes", f.glob_routes);
        cr_expect_gt(f.globstar_routes, 20, "%zu '**' routes", f.globstar_routes);
        break;
    case RB_GEN_TEMPLATES: /* about half of the routes; items only without conflicts */
        if (nc)
            cr_expect_gt(f.template_routes, 100, "%zu template routes", f.template_routes);
        else
            cr_expect(f.template_routes > 4000 && f.template_routes < 6000, "%zu template routes",
                      f.template_routes);
        break;
    default:
        break;
    }
    if (shape != RB_GEN_TEMPLATES) cr_expect_eq(f.template_routes, 0);
    if (shape != RB_GEN_CATCHALL && shape != RB_GEN_GLOB)
        cr_expect_eq(f.catchall_routes + f.glob_routes + f.globstar_routes, 0);
    if (nc)
        cr_expect(!f.mixed_kinds, "%s --no-conflicts has a prefix with children of two kinds",
                  name);
    else if (shape != RB_GEN_STATIC)
        cr_expect(f.conflict, "%s has no static and param siblings", name);
    /* GET dominant, with POST/PUT/PATCH/DELETE present */
    for (int m = 1; m <= RB_ANY; m++)
        cr_expect_gt(f.methods[RB_GET], f.methods[m], "%s: %s outnumbers GET", name,
                     rb_method_name(m));
    cr_expect(f.methods[RB_POST] && f.methods[RB_PUT] && f.methods[RB_PATCH] &&
              f.methods[RB_DELETE]);

    /* linear (on the whole table) agrees with the generated requests; 128
     * requests keep the sanitizer build fast (test_corpus_requests checks
     * thousands on smaller tables) */
    rb_reqgen_config q;
    rb_reqgen_config_init(&q);
    q.count = 128;
    rb_request_table reqs;
    rb_reqgen_report qrep;
    cr_assert_eq(rb_requests_generate(&t, &q, &reqs, &qrep, &err), RB_OK, "%s", err.message);
    rb_verify_report vr;
    cr_assert_eq(rb_verify(&rb__linear_ops, &t, name, &reqs, &vr, &err), RB_OK, "%s", err.message);
    cr_expect_eq(vr.agree_expected, 128, "%s nc %d: %zu/128 agree", name, nc, vr.agree_expected);
    /* only a '**' taking no segment can leave a path its prefix's route takes */
    if (shape == RB_GEN_GLOB)
        cr_expect_lt(qrep.hits_taken, qrep.hits / 50, "%s nc %d: %zu hits taken", name, nc,
                     qrep.hits_taken);
    else
        cr_expect_eq(qrep.hits_taken, 0, "%s nc %d: %zu hits taken", name, nc, qrep.hits_taken);
    rb_request_table_free(&reqs);
    rb_route_table_free(&t);
}

Test(corpus_gen, static_10k_is_unique_unshadowed_diverse_and_verified)
{
    check_shape_10k(RB_GEN_STATIC, false, RB_GEN_V2);
}
Test(corpus_gen, static_10k_v1_is_unique_unshadowed_diverse_and_verified)
{
    check_shape_10k(RB_GEN_STATIC, false, RB_GEN_V1);
}
Test(corpus_gen, params_10k_is_unique_unshadowed_diverse_and_verified)
{
    check_shape_10k(RB_GEN_PARAMS, false, RB_GEN_V2);
}
Test(corpus_gen, params_10k_v1_is_unique_unshadowed_diverse_and_verified)
{
    check_shape_10k(RB_GEN_PARAMS, false, RB_GEN_V1);
}
Test(corpus_gen, params_10k_no_conflicts_is_unique_unshadowed_diverse_and_verified)
{
    check_shape_10k(RB_GEN_PARAMS, true, RB_GEN_V2);
}
Test(corpus_gen, params_10k_no_conflicts_v1_is_unique_unshadowed_diverse_and_verified)
{
    check_shape_10k(RB_GEN_PARAMS, true, RB_GEN_V1);
}
Test(corpus_gen, mixed_10k_is_unique_unshadowed_diverse_and_verified)
{
    check_shape_10k(RB_GEN_MIXED, false, RB_GEN_V2);
}
Test(corpus_gen, mixed_10k_v1_is_unique_unshadowed_diverse_and_verified)
{
    check_shape_10k(RB_GEN_MIXED, false, RB_GEN_V1);
}
Test(corpus_gen, mixed_10k_no_conflicts_is_unique_unshadowed_diverse_and_verified)
{
    check_shape_10k(RB_GEN_MIXED, true, RB_GEN_V2);
}
Test(corpus_gen, mixed_10k_no_conflicts_v1_is_unique_unshadowed_diverse_and_verified)
{
    check_shape_10k(RB_GEN_MIXED, true, RB_GEN_V1);
}
Test(corpus_gen, catchall_10k_is_unique_unshadowed_diverse_and_verified)
{
    check_shape_10k(RB_GEN_CATCHALL, false, RB_GEN_V2);
}
Test(corpus_gen, catchall_10k_v1_is_unique_unshadowed_diverse_and_verified)
{
    check_shape_10k(RB_GEN_CATCHALL, false, RB_GEN_V1);
}
Test(corpus_gen, catchall_10k_no_conflicts_is_unique_unshadowed_diverse_and_verified)
{
    check_shape_10k(RB_GEN_CATCHALL, true, RB_GEN_V2);
}
Test(corpus_gen, catchall_10k_no_conflicts_v1_is_unique_unshadowed_diverse_and_verified)
{
    check_shape_10k(RB_GEN_CATCHALL, true, RB_GEN_V1);
}
Test(corpus_gen, glob_10k_is_unique_unshadowed_diverse_and_verified)
{
    check_shape_10k(RB_GEN_GLOB, false, RB_GEN_V2);
}
Test(corpus_gen, glob_10k_v1_is_unique_unshadowed_diverse_and_verified)
{
    check_shape_10k(RB_GEN_GLOB, false, RB_GEN_V1);
}
Test(corpus_gen, glob_10k_no_conflicts_is_unique_unshadowed_diverse_and_verified)
{
    check_shape_10k(RB_GEN_GLOB, true, RB_GEN_V2);
}
Test(corpus_gen, glob_10k_no_conflicts_v1_is_unique_unshadowed_diverse_and_verified)
{
    check_shape_10k(RB_GEN_GLOB, true, RB_GEN_V1);
}

Test(corpus_gen, templates_10k_is_unique_unshadowed_diverse_and_verified)
{
    check_shape_10k(RB_GEN_TEMPLATES, false, RB_GEN_V2);
}
Test(corpus_gen, templates_10k_v1_is_unique_unshadowed_diverse_and_verified)
{
    check_shape_10k(RB_GEN_TEMPLATES, false, RB_GEN_V1);
}
Test(corpus_gen, templates_10k_no_conflicts_is_unique_unshadowed_diverse_and_verified)
{
    check_shape_10k(RB_GEN_TEMPLATES, true, RB_GEN_V2);
}

/* The last segment of a templates-shape pattern as the mixed shape wrote it:
 * {x}.json, {x}.{f}, ab_{x}, {x}-{r} -> :x; w.{f} -> w (generate.h). */
static size_t untemplate(const char *p, size_t n, char *out, size_t cap)
{
    size_t start = n;
    while (p[start - 1] != '/') start--;
    const char *seg = p + start, *open = memchr(seg, '{', n - start);
    size_t w = start;
    memcpy(out, p, start);
    if (!open) {
        memcpy(out + w, seg, n - start);
        return n;
    }
    if (open > seg && open[-1] == '.') { /* w.{format} */
        memcpy(out + w, seg, (size_t)(open - 1 - seg));
        return w + (size_t)(open - 1 - seg);
    }
    const char *close = memchr(open, '}', (size_t)(p + n - open));
    cr_assert(close && w + 1 + (size_t)(close - open - 1) < cap);
    out[w++] = ':';
    memcpy(out + w, open + 1, (size_t)(close - open - 1));
    return w + (size_t)(close - open - 1);
}

/* Rule: the templates shape is the mixed tree of the same seed, with last
 * segments written as templates: undoing that gives the mixed table,
 * route for route; and a param and a template meet at some place. */
Test(corpus_gen, templates_shape_is_the_mixed_tree_with_templates)
{
    for (int nc = 0; nc < 2; nc++) {
        rb_route_table t = gen(3000, 5, RB_GEN_TEMPLATES, nc), m = gen(3000, 5, RB_GEN_MIXED, nc);
        cr_assert_eq(t.count, m.count);
        size_t templated = 0;
        for (size_t i = 0; i < t.count; i++) {
            char back[1200];
            size_t n = untemplate(rb_route_pattern(&t, i), t.routes[i].len, back, sizeof back);
            templated += n != t.routes[i].len || memcmp(back, rb_route_pattern(&t, i), n) != 0;
            cr_expect_eq(t.routes[i].method, m.routes[i].method, "route %zu", i);
            cr_expect(n == m.routes[i].len && memcmp(back, rb_route_pattern(&m, i), n) == 0,
                      "route %zu: %.*s is not %.*s written as a template", i, (int)t.routes[i].len,
                      rb_route_pattern(&t, i), (int)m.routes[i].len, rb_route_pattern(&m, i));
        }
        cr_expect_gt(templated, nc ? 30u : 1000u, "nc %d: %zu routes written as templates", nc,
                     templated);
        rb_route_table_free(&t);
        rb_route_table_free(&m);
    }
    /* GET /a/{x}.json beside the param of /a/:x/... at one place */
    rb_route_table t = gen(3000, 5, RB_GEN_TEMPLATES, false);
    rb_shape_tree st;
    cr_assert_eq(rb_shape_tree_build(&t, &st, NULL), RB_OK);
    bool meet = false;
    for (size_t n = 0; n < st.nnodes && !meet; n++) {
        bool param = false, tmpl = false;
        for (uint32_t c = st.nodes[n].first_wild; c != RB_ST_NONE; c = st.nodes[c].next_wild) {
            param = param || st.nodes[c].kind == RB_SEG_PARAM;
            tmpl = tmpl || st.nodes[c].kind == RB_SEG_TEMPLATE;
        }
        meet = param && tmpl;
    }
    cr_expect(meet, "no place with a param and a template");
    rb_shape_tree_free(&st);
    rb_route_table_free(&t);
}

Test(corpus_gen, other_seeds_stay_clean)
{
    /* the 10k tests use seed 1; a few more seeds at 3,000 routes */
    for (uint64_t seed = 2; seed < 4; seed++) {
        for (int shape = 0; shape < RB_GEN_SHAPE_COUNT; shape++) {
            for (int nc = 0; nc < 2; nc++) {
                rb_route_table t = gen(3000, seed, shape, nc);
                rb_check_report rep;
                rb_error err;
                cr_assert_eq(rb_corpus_check(&t, NULL, &rep, &err), RB_OK, "%s", err.message);
                cr_expect_eq(rep.distinct_routes, 3000);
                cr_expect_eq(rep.shadowed + rep.possibly_shadowed, 0,
                             "seed %llu %s nc %d: %zu shadowed", (unsigned long long)seed,
                             rb_gen_shape_name(shape), nc, rep.shadowed + rep.possibly_shadowed);
                rb_check_report_free(&rep);
                rb_route_table_free(&t);
            }
        }
    }
}

/* Counts routes by depth (segments = '/' bytes of the pattern). */
static void depth_histogram(const rb_route_table *t, size_t *depth, size_t cap)
{
    memset(depth, 0, cap * sizeof *depth);
    for (size_t i = 0; i < t->count; i++) {
        const char *p = rb_route_pattern(t, i);
        size_t d = 0;
        for (uint32_t k = 0; k < t->routes[i].len; k++) d += p[k] == '/';
        depth[d < cap ? d : cap - 1]++;
    }
}

Test(corpus_gen, v2_at_1m_no_depth_holds_a_third)
{
    for (int shape = 0; shape < RB_GEN_SHAPE_COUNT; shape++) {
        rb_route_table t = gen(RB_GEN_MAX_ROUTES, 1, shape, false);
        size_t depth[16];
        depth_histogram(&t, depth, 16);
        for (size_t d = 0; d < 16; d++)
            cr_expect_leq(depth[d], RB_GEN_MAX_ROUTES / 3, "v2 %s at 1M: %zu routes at depth %zu",
                          rb_gen_shape_name(shape), depth[d], d);
        rb_route_table_free(&t);
    }
    /* what v2 fixes: v1 puts most of a 1M mixed table at its depth limit */
    rb_route_table t = gen_with(RB_GEN_V1, RB_GEN_MAX_ROUTES, 1, RB_GEN_MIXED, false);
    size_t depth[16];
    depth_histogram(&t, depth, 16);
    cr_expect_gt(depth[8], RB_GEN_MAX_ROUTES * 8 / 10, "v1 at 1M: %zu at depth 8", depth[8]);
    rb_route_table_free(&t);
}

/* Rule: the shipped pagerduty-like table is what its first line says made
 * it: `corpus gen --like` of the shipped profile (counts only) gives the
 * same bytes, routes and requests. */
Test(corpus_gen, shipped_pagerduty_like_is_made_from_its_profile)
{
    char dir[] = "/tmp/rb_gen_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && '%s/routebench' corpus gen --like corpus/data/pagerduty.profile.json "
             "--routes 465 --seed 1 --out %s/pd >/dev/null",
             RB_SOURCE_DIR, RB_BINARY_DIR, dir);
    cr_assert_eq(run(cmd), 0, "%s", cmd);
    const char *ext[] = {"routes", "requests"};
    for (int e = 0; e < 2; e++) {
        char made[600], shipped[600];
        snprintf(made, sizeof made, "%s/pd.%s", dir, ext[e]);
        snprintf(shipped, sizeof shipped, "%s/corpus/data/pagerduty-like.%s", RB_SOURCE_DIR,
                 ext[e]);
        size_t n0, n1;
        char *d0 = slurp(made, &n0), *d1 = slurp(shipped, &n1);
        cr_expect(n0 > 0 && n0 == n1 && memcmp(d0, d1, n0) == 0,
                  "%s differs from corpus/data/pagerduty-like.%s", made, ext[e]);
        free(d0);
        free(d1);
        remove(made);
    }
    rmdir(dir);
}
