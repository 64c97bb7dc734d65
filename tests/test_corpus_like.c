/*
 * test_corpus_like.c — `corpus gen --like` (corpus/like.h).
 *
 * Rules checked: the same profile, N and seed give the same bytes, and the
 * profile read from JSON gives the same bytes as the routes file it came
 * from (generation sees counts only, never words); exactly N routes, every
 * (method, shape) distinct, for small N and every shipped table; at 10,000
 * routes, for every shipped public table and an imported OpenAPI document,
 * the table passes the check (no duplicates, nothing shadowed) and is
 * closer to the source's profile than `--shape mixed` is, on every
 * histogram (total variation), with its depth distribution within the
 * growth model's bound; at 1,000,000 routes likewise for GitHub; templates
 * stay templates (Twilio's table); more routes than the profile holds grow
 * below the root too (the root narrower than v1's), a single version stays
 * single, extensions are the source's, one param syntax a table; v1 keeps
 * its bytes; tables too large are refused up front; bad arguments are
 * errors.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "generate.h"
#include "like.h"
#include "openapi.h"
#include "rb_test.h"
#include "shape_tree.h"

static const char *const tables[] = {"github", "discord", "gplus", "parse", "static"};
#define NTABLES (sizeof tables / sizeof tables[0])

static rb_profile profile_of_table(const rb_route_table *t)
{
    rb_profile p;
    rb_error err;
    cr_assert_eq(rb_profile_fit(t, &p, &err), RB_OK, "%s", err.message);
    return p;
}

static rb_profile shipped_profile(const char *name)
{
    char path[1024];
    rbt_data_path(name, "routes", path, sizeof path);
    rb_profile p;
    rb_error err;
    cr_assert_eq(rb_profile_load(path, &p, NULL, &err), RB_OK, "%s", err.message);
    return p;
}

static rb_route_table like_model(const rb_profile *p, size_t n, uint64_t seed, uint32_t model,
                                 rb_like_report *rep)
{
    rb_like_config c = {n, seed, model, RB_LIKE_SYNTAX_SOURCE};
    rb_route_table t;
    rb_error err;
    cr_assert_eq(rb_corpus_generate_like(p, &c, &t, rep, &err), RB_OK, "%zu routes: %s", n,
                 err.message);
    cr_assert_eq(t.count, n);
    return t;
}

static rb_route_table like(const rb_profile *p, size_t n, uint64_t seed, rb_like_report *rep)
{
    return like_model(p, n, seed, 0, rep);
}

static uint64_t fingerprint_like(const rb_profile *p, size_t n, uint64_t seed)
{
    rb_route_table t = like(p, n, seed, NULL);
    uint64_t fp = rb_route_table_fingerprint(&t);
    rb_route_table_free(&t);
    return fp;
}

Test(corpus_like, deterministic_and_from_counts_only)
{
    rb_profile p = shipped_profile("github");
    cr_expect_eq(fingerprint_like(&p, 3000, 5), fingerprint_like(&p, 3000, 5));
    cr_expect_neq(fingerprint_like(&p, 3000, 5), fingerprint_like(&p, 3000, 6));
    /* the profile read back from JSON (no words in it) makes the same table */
    rb_buf b = {0};
    rb_error err;
    cr_assert_eq(rb_profile_json_write(&p, &b, &err), RB_OK);
    rb_profile q;
    cr_assert_eq(rb_profile_json_parse("github.json", b.data, b.len, &q, &err), RB_OK, "%s",
                 err.message);
    rb_buf_free(&b);
    cr_expect_eq(fingerprint_like(&q, 3000, 5), fingerprint_like(&p, 3000, 5));
}

Test(corpus_like, exactly_n_distinct_routes)
{
    const size_t sizes[] = {1, 2, 3, 5, 13, 100, 999};
    const char *names[] = {"github", "discord", "gplus", "parse", "static", "semantics"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        rb_profile p = shipped_profile(names[i]);
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            rb_route_table t = like(&p, sizes[k], k, NULL);
            rb_shape_tree st;
            rb_error err; /* every pattern parses, none repeats a (method, shape) */
            cr_assert_eq(rb_shape_tree_build(&t, &st, &err), RB_OK, "%s", err.message);
            cr_expect_eq(st.nduplicates, 0, "%s at %zu: %zu duplicates", names[i], sizes[k],
                         st.nduplicates);
            rb_shape_tree_free(&st);
            rb_route_table_free(&t);
        }
    }
}

/* Clean, like the source at its depths, and closer to it than --shape
 * mixed on every histogram. */
static void expect_like(const char *name, const rb_profile *src, size_t n)
{
    rb_like_report rep;
    rb_route_table t = like(src, n, 1, &rep);
    rb_check_report cr;
    rb_error err;
    cr_assert_eq(rb_corpus_check(&t, NULL, &cr, &err), RB_OK, "%s", err.message);
    cr_expect_eq(cr.distinct_routes, n, "%s: %zu distinct", name, cr.distinct_routes);
    cr_expect_eq(cr.shape_duplicates + cr.shadowed + cr.possibly_shadowed, 0,
                 "%s at %zu: %zu duplicates, %zu shadowed, %zu possibly", name, n,
                 cr.shape_duplicates, cr.shadowed, cr.possibly_shadowed);
    rb_check_report_free(&cr);
    rb_profile got = profile_of_table(&t);
    rb_route_table_free(&t);

    rb_gen_config g = {.routes = n, .seed = 1, .shape = RB_GEN_MIXED};
    cr_assert_eq(rb_corpus_generate(&g, &t, &err), RB_OK, "%s", err.message);
    rb_profile mixed = profile_of_table(&t);
    rb_route_table_free(&t);

    rb_profile_distance dl, dm;
    rb_profile_compare(src, &got, &dl);
    rb_profile_compare(src, &mixed, &dm);
    for (int h = 0; h < RB_PH_COUNT; h++) {
        rb_profile_hist x;
        rb_profile_histogram(src, h, &x);
        cr_expect_leq(dl.hist[h], dm.hist[h], "%s at %zu, %s: like %.3f, mixed %.3f", name, n,
                      x.name, dl.hist[h], dm.hist[h]);
    }
    cr_expect_lt(dl.mean, dm.mean / 4, "%s at %zu: mean like %.3f, mixed %.3f", name, n, dl.mean,
                 dm.mean);
    /* the depth distribution is the source's within the growth model's
     * bound (up to rounding) */
    cr_expect_lt(dl.hist[RB_PH_DEPTH], RB_LIKE_DEPTH_TV_MILLI / 1000.0 + 0.0005,
                 "%s: depth distance %.4f", name, dl.hist[RB_PH_DEPTH]);
    cr_expect_eq(rep.max_depth, src->max_depth);
    cr_expect_eq(rep.profile_routes, src->routes);
}

Test(corpus_like, shipped_tables_at_10k)
{
    for (size_t i = 0; i < NTABLES; i++) {
        rb_profile p = shipped_profile(tables[i]);
        expect_like(tables[i], &p, 10000);
    }
}

Test(corpus_like, imported_openapi_at_10k)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/corpus/data/openapi/discord.openapi.json", RB_SOURCE_DIR);
    rb_route_table t;
    rb_openapi_report rep;
    rb_error err;
    cr_assert_eq(rb_openapi_import_file(path, &t, &rep, &err), RB_OK, "%s", err.message);
    rb_profile p = profile_of_table(&t);
    rb_route_table_free(&t);
    expect_like("discord.openapi.json", &p, 10000);
}

Test(corpus_like, github_at_1m)
{
    rb_profile p = shipped_profile("github");
    expect_like("github", &p, RB_GEN_MAX_ROUTES);
}

Test(corpus_like, v1_widens_the_root_with_its_old_bytes)
{
    rb_profile p = shipped_profile("github");
    rb_like_report rep;
    rb_route_table t = like_model(&p, 10000, 1, RB_LIKE_V1, &rep);
    rb_route_table_free(&t);
    /* GitHub: 21 prefixes at depth 1 hold 16 of 203 routes; 10,000 routes
     * put 788 at depth 1 (16 x 10,000 / 203), at most 9 a path: at least
     * 88 children of the root */
    cr_expect_eq(rep.profile_root_fanout, 21);
    cr_expect_geq(rep.root_fanout, 88, "%u", rep.root_fanout);
    t = like_model(&p, 100, 1, RB_LIKE_V1, &rep);
    rb_route_table_free(&t);
    cr_expect_lt(rep.root_fanout, 21);
    /* the bytes of the model before v2 (routebench at fd5b0dd: corpus gen
     * --like github.routes --routes 2000 --seed 3) */
    t = like_model(&p, 2000, 3, RB_LIKE_V1, NULL);
    cr_expect_eq(rb_route_table_fingerprint(&t), UINT64_C(0x4f94c8a02e192d73));
    rb_route_table_free(&t);
}

typedef struct seg_ref {
    const char *p;
    size_t len;
} seg_ref;

static int cmp_seg(const void *a, const void *b)
{
    const seg_ref *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->p, y->p, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* The distinct first segments of t's patterns: the root's children,
 * counted independently of the generator's report. */
static size_t root_children(const rb_route_table *t)
{
    seg_ref *v = malloc(t->count * sizeof *v);
    cr_assert_not_null(v);
    for (size_t i = 0; i < t->count; i++) {
        const char *p = rb_route_pattern(t, i);
        v[i] = (seg_ref){p + 1, strcspn(p + 1, "/")};
    }
    qsort(v, t->count, sizeof *v, cmp_seg);
    size_t n = t->count > 0;
    for (size_t i = 1; i < t->count; i++) n += cmp_seg(&v[i - 1], &v[i]) != 0;
    free(v);
    return n;
}

/* 142. A table grown from a profile widened only the root: Twilio at
 *      10,000 routes had 51 versions /v1 .. /v51 (the source has one),
 *      GitHub 1,034 children of / (21).  Now levels below the root grow
 *      too, and a level of a single version does not grow at all. */
Test(corpus_like, regression_142_growth_keeps_the_root_narrow_and_one_version)
{
    rb_profile tw = shipped_profile("twilio"), gh = shipped_profile("github");
    for (size_t n = 10000; n <= 100000; n *= 10) {
        rb_route_table t = like(&tw, n, 1, NULL);
        cr_expect_eq(root_children(&t), 1, "Twilio at %zu: one version, as the source", n);
        rb_route_table_free(&t);
        t = like(&gh, n, 1, NULL);
        size_t v2 = root_children(&t);
        rb_route_table_free(&t);
        t = like_model(&gh, n, 1, RB_LIKE_V1, NULL);
        size_t v1 = root_children(&t);
        rb_route_table_free(&t);
        cr_expect_lt(v2 * 3, v1 * 2, "GitHub at %zu: %zu children of / (v1: %zu)", n, v2, v1);
    }
}

/* 143. Extensions were drawn uniformly from 24 common ones: of 10,000
 *      routes like Twilio's (every one ending in .json) 411 ended in
 *      .json.  Now they are drawn from the source's. */
Test(corpus_like, regression_143_extensions_are_the_sources)
{
    rb_profile p = shipped_profile("twilio");
    rb_route_table t = like(&p, 10000, 1, NULL);
    size_t json = 0;
    for (size_t i = 0; i < t.count; i++) {
        const char *r = rb_route_pattern(&t, i);
        size_t len = t.routes[i].len;
        json += len > 5 && memcmp(r + len - 5, ".json", 5) == 0;
    }
    rb_profile got = profile_of_table(&t);
    rb_route_table_free(&t);
    /* every one of Twilio's 197 routes ends in .json (grep -c '\.json$') */
    cr_expect_geq(json, 9800, "%zu of 10,000 end in .json", json);
    rb_profile_hist a, b;
    rb_profile_histogram(&p, RB_PH_EXT_NAMES, &a);
    rb_profile_histogram(&got, RB_PH_EXT_NAMES, &b);
    cr_expect_leq(rb_profile_tv(&a, &b), 0.02, "extension names distance %.3f",
                  rb_profile_tv(&a, &b));
}

/* 144. Params were written :id and templates {sid}.json in one table
 *      (/v19/.../:x_id/y/{sid}.ttf); harnesses of other routers take one
 *      syntax.  Now one syntax a table: the source's, or --param-syntax. */
Test(corpus_like, regression_144_one_param_syntax_a_table)
{
    const char *names[] = {"twilio", "github"};
    for (int k = 0; k < 2; k++) {
        rb_profile p = shipped_profile(names[k]);
        for (int syn = RB_LIKE_SYNTAX_SOURCE; syn <= RB_LIKE_SYNTAX_BRACE; syn++) {
            rb_like_config c = {3000, 1, 0, syn};
            rb_route_table t;
            rb_error err;
            int rc = rb_corpus_generate_like(&p, &c, &t, NULL, &err);
            if (k == 0 && syn == RB_LIKE_SYNTAX_COLON) { /* templates need braces */
                cr_expect_eq(rc, RB_EINVAL);
                cr_expect(strstr(err.message, "templates") != NULL, "%s", err.message);
                continue;
            }
            cr_assert_eq(rc, RB_OK, "%s", err.message);
            size_t colon = 0, brace = 0;
            for (size_t i = 0; i < t.count; i++) {
                const char *r = rb_route_pattern(&t, i);
                for (size_t j = 0; j + 1 < t.routes[i].len; j++) {
                    colon += r[j] == '/' && (r[j + 1] == ':' || r[j + 1] == '*');
                    brace += r[j] == '{';
                }
            }
            rb_route_table_free(&t);
            /* Twilio writes {Sid}, GitHub :id */
            bool want_brace = syn == RB_LIKE_SYNTAX_BRACE || (syn == 0 && k == 0);
            cr_expect(want_brace ? colon == 0 && brace > 0 : brace == 0 && colon > 0,
                      "%s, syntax %d: %zu colon, %zu brace", names[k], syn, colon, brace);
        }
    }
}

/* 145. A 60-route table of depth 32 at 1,000,000 routes took 26 s and 3.2
 *      GB (tens of millions of prefixes).  Now a table past the limits is
 *      refused before anything is allocated, naming what fits. */
Test(corpus_like, regression_145_a_deep_profile_is_refused_up_front)
{
    rb_route_table src = {0};
    for (int i = 0; i < 60; i++) {
        char pat[512];
        size_t len = 0;
        for (int d = 0; d < 32; d++)
            len += (size_t)snprintf(pat + len, sizeof pat - len, d % 3 == 1 ? "/:p%d" : "/s%dx%d",
                                    d, d == 31 ? i : d % 5);
        cr_assert_eq(rb_route_table_append(&src, RB_GET, pat, len, (size_t)i + 1), RB_OK);
    }
    rb_profile p = profile_of_table(&src);
    rb_route_table_free(&src);
    cr_assert_eq(p.max_depth, 32);
    rb_like_config c = {RB_GEN_MAX_ROUTES, 1, 0, RB_LIKE_SYNTAX_SOURCE};
    rb_route_table t;
    rb_error err;
    cr_expect_eq(rb_corpus_generate_like(&p, &c, &t, NULL, &err), RB_ELIMIT);
    cr_expect(strstr(err.message, "at most ") != NULL, "%s", err.message);
    cr_expect_eq(t.count, 0);
    /* what it names fits */
    const char *at = strstr(err.message, "at most ");
    cr_assert_not_null(at);
    size_t most = (size_t)strtoull(at + strlen("at most "), NULL, 10);
    cr_assert_gt(most, 1000u, "%s", err.message);
    c.routes = most;
    cr_expect_eq(rb_corpus_generate_like(&p, &c, &t, NULL, &err), RB_OK, "%zu: %s", c.routes,
                 err.message);
    rb_route_table_free(&t);
    c.routes = most + 1; /* ... and one more does not */
    cr_expect_eq(rb_corpus_generate_like(&p, &c, &t, NULL, &err), RB_ELIMIT, "%zu", c.routes);
}

Test(corpus_like, bad_arguments)
{
    rb_profile p = shipped_profile("gplus");
    rb_like_config c = {0, 1, 0, RB_LIKE_SYNTAX_SOURCE};
    rb_route_table t;
    rb_error err;
    cr_expect_eq(rb_corpus_generate_like(&p, &c, &t, NULL, &err), RB_EINVAL);
    c.routes = RB_GEN_MAX_ROUTES + 1;
    cr_expect_eq(rb_corpus_generate_like(&p, &c, &t, NULL, &err), RB_EINVAL);
    c.routes = 10;
    p.depth[2]++; /* counts that disagree */
    cr_expect_eq(rb_corpus_generate_like(&p, &c, &t, NULL, &err), RB_EINVAL);
    cr_expect(strstr(err.message, "inconsistent") != NULL, "%s", err.message);
    cr_expect_eq(t.count, 0);
}

Test(corpus_like, cli)
{
    char gh[1024], cmd[4096];
    rbt_data_path("github", "routes", gh, sizeof gh);
    snprintf(cmd, sizeof cmd,
             "'%s/routebench' corpus gen --like '%s' --routes 2000 --seed 3 --generator v2 "
             "--out /tmp/rb_like_t | grep -q 'grown as APIs grow'",
             RB_BINARY_DIR, gh);
    cr_expect_eq(rbt_run(cmd), 0, "%s", cmd);
    rb_route_table t;
    rb_error err;
    cr_assert_eq(rb_route_table_read("/tmp/rb_like_t.routes", &t, &err), RB_OK, "%s", err.message);
    rb_profile p = shipped_profile("github");
    cr_expect_eq(rb_route_table_fingerprint(&t), fingerprint_like(&p, 2000, 3));
    rb_route_table_free(&t);
    remove("/tmp/rb_like_t.routes");
    remove("/tmp/rb_like_t.requests");
    const char *bad[] = {
        "--shape mixed --routes 10 --seed 1 --out /tmp/x",
        "--generator v4 --routes 10 --seed 1 --out /tmp/x",
        "--param-syntax dollar --routes 10 --seed 1 --out /tmp/x",
        "--routes 0 --seed 1 --out /tmp/x",
        "--routes 10 --seed 1 --out /tmp/x --like /nonexistent.routes",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(cmd, sizeof cmd, "'%s/routebench' corpus gen --like '%s' %s 2>/dev/null",
                 RB_BINARY_DIR, gh, bad[i]);
        cr_expect_eq(rbt_run(cmd), 2, "%s", bad[i]);
    }
}

/* The template prefixes' share of all prefixes of p. */
static double template_share(const rb_profile *p)
{
    uint64_t tmpl = 0, all = 0;
    for (int d = 0; d <= RB_PROFILE_DEPTHS; d++) {
        tmpl += p->level[d].kind[RB_PK_TEMPLATE].nodes;
        all += rb_profile_level_sum(&p->level[d], RB_PF_NODES);
    }
    return all ? (double)tmpl / (double)all : 0;
}

/* Rule: a profile's templates are written as templates ({sid}.json), not
 * globs: a table like Twilio's has its template prefixes at its rate, and
 * no glob, which a router without globs would refuse. */
Test(corpus_like, templates_stay_templates)
{
    rb_profile p = shipped_profile("twilio");
    expect_like("twilio", &p, 10000);
    rb_route_table t = like(&p, 10000, 1, NULL);
    unsigned features = 0;
    for (size_t i = 0; i < t.count; i++) {
        rb_pattern pat;
        rb_error err;
        cr_assert_eq(rb_pattern_parse(rb_route_pattern(&t, i), t.routes[i].len, NULL, &pat, &err),
                     RB_OK, "%s", err.message);
        features |= pat.features;
        rb_pattern_free(&pat);
    }
    rb_profile got = profile_of_table(&t);
    rb_route_table_free(&t);
    cr_expect(features & RB_FEAT_TEMPLATE);
    cr_expect(!(features & RB_FEAT_GLOB), "globs in a table like Twilio's (which has none)");
    double share = template_share(&p);
    cr_assert_gt(share, 0.1, "Twilio's template share %.3f", share);
    cr_expect_lt(template_share(&got), share + 0.02);
    cr_expect_gt(template_share(&got), share - 0.02);
}

/* 146. The count of globs made static words included templates: a table
 *      like Twilio's (no glob, catch-all or '**') said "6 catch-alls, '**'
 *      or globs made static words".  Templates are counted on their own. */
Test(corpus_like, regression_146_templates_made_static_are_counted_apart)
{
    rb_profile p = shipped_profile("twilio");
    rb_like_report rep;
    rb_route_table t = like_model(&p, 10000, 1, RB_LIKE_V1, &rep);
    rb_route_table_free(&t);
    /* Twilio has templates and no glob, catch-all or '**' (corpus profile) */
    cr_expect_eq(rep.demoted, 0, "%llu", (unsigned long long)rep.demoted);
    cr_expect_gt(rep.demoted_templates, 0);
    char tw[1024], cmd[4096];
    rbt_data_path("twilio", "routes", tw, sizeof tw);
    snprintf(cmd, sizeof cmd,
             "'%s/routebench' corpus gen --like '%s' --generator v1 --routes 10000 --seed 1 "
             "--out /tmp/rb_like_tw | grep -q 'templates made static' && ! '%s/routebench' corpus "
             "gen --like '%s' --generator v1 --routes 10000 --seed 1 --out /tmp/rb_like_tw | grep "
             "-q 'globs made static'",
             RB_BINARY_DIR, tw, RB_BINARY_DIR, tw);
    cr_expect_eq(rbt_run(cmd), 0, "%s", cmd);
    remove("/tmp/rb_like_tw.routes");
    remove("/tmp/rb_like_tw.requests");
}

/* The children-per-prefix distance (total variation of prefixes with
 * children by depth and fan-out) of n routes like p under a model. */
static double fanout_distance(const rb_profile *p, size_t n, uint32_t model)
{
    rb_route_table t = like_model(p, n, 1, model, NULL);
    rb_profile got = profile_of_table(&t);
    rb_route_table_free(&t);
    rb_profile_distance d;
    rb_profile_compare(p, &got, &d);
    return d.hist[RB_PH_FANOUT];
}

/* 160. Growing a table widened every prefix below the top by one factor,
 *      so most prefixes left their fan-out bucket: children-per-prefix
 *      distance 0.168 at 10x GitHub, 0.209 at 10x Discord (v1: 0.049,
 *      0.050).  Now only a level's hubs take the extra children. */
Test(corpus_like, regression_160_growth_keeps_the_fanout_per_prefix)
{
    const char *names[] = {"github", "discord", "twilio"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        rb_profile p = shipped_profile(names[i]);
        size_t n = (size_t)p.routes * 10;
        double v2 = fanout_distance(&p, n, RB_LIKE_V2), v1 = fanout_distance(&p, n, RB_LIKE_V1);
        cr_expect_lt(v2, 0.08, "%s at %zu: fan-out distance %.3f", names[i], n, v2);
        cr_expect_lt(v2, v1, "%s at %zu: fan-out distance %.3f, v1 %.3f", names[i], n, v2, v1);
    }
}

/* 161. The growth model's bound on the depth distance was checked after
 *      truncating to 1/1000: tables grew to distance 0.1009 (shown 0.101)
 *      against a bound of 0.100. */
Test(corpus_like, regression_161_depth_stays_within_its_bound)
{
    const char *names[] = {"github", "discord", "twilio", "static"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        rb_profile p = shipped_profile(names[i]);
        for (size_t n = (size_t)p.routes * 10; n <= (size_t)p.routes * 100; n *= 10) {
            rb_route_table t = like(&p, n, 1, NULL);
            rb_profile got = profile_of_table(&t);
            rb_route_table_free(&t);
            rb_profile_distance d;
            rb_profile_compare(&p, &got, &d);
            cr_expect_leq(d.hist[RB_PH_DEPTH], RB_LIKE_DEPTH_TV_MILLI / 1000.0 + 0.0002,
                          "%s at %zu: depth distance %.4f", names[i], n, d.hist[RB_PH_DEPTH]);
        }
    }
}

/* 162. A table under a base path (Discord's document imported with
 *      /api/v10) grew new top-level words beside /api: 5 children of / at
 *      2,420 routes, 46 at 24,200.  A single word below a single prefix
 *      is kept single, like a single version. */
Test(corpus_like, regression_162_a_base_path_stays_single)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/corpus/data/openapi/discord.openapi.json", RB_SOURCE_DIR);
    rb_route_table t;
    rb_openapi_report rep;
    rb_error err;
    cr_assert_eq(rb_openapi_import_file(path, &t, &rep, &err), RB_OK, "%s", err.message);
    cr_assert_eq(strncmp(rb_route_pattern(&t, 0), "/api/v10/", 9), 0, "%s",
                 rb_route_pattern(&t, 0));
    rb_profile p = profile_of_table(&t);
    rb_route_table_free(&t);
    for (size_t n = 2420; n <= 24200; n *= 10) {
        t = like(&p, n, 1, NULL);
        cr_expect_eq(root_children(&t), 1, "at %zu: %zu children of /", n, root_children(&t));
        rb_route_table_free(&t);
    }
}
