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
 * histogram (total variation), with the source's depth distribution; at
 * 1,000,000 routes likewise for GitHub; templates stay templates (Twilio's
 * table); more routes than the profile holds widen the root, and the
 * report says so; bad arguments are errors.
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

static rb_route_table like(const rb_profile *p, size_t n, uint64_t seed, rb_like_report *rep)
{
    rb_like_config c = {n, seed, 0, RB_LIKE_SYNTAX_SOURCE};
    rb_route_table t;
    rb_error err;
    cr_assert_eq(rb_corpus_generate_like(p, &c, &t, rep, &err), RB_OK, "%zu routes: %s", n,
                 err.message);
    cr_assert_eq(t.count, n);
    return t;
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
    /* the depth distribution is the source's, up to rounding */
    cr_expect_lt(dl.hist[RB_PH_DEPTH], 0.001, "%s: depth distance %.4f", name,
                 dl.hist[RB_PH_DEPTH]);
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

Test(corpus_like, more_routes_widen_the_root)
{
    rb_profile p = shipped_profile("github");
    rb_like_report rep;
    rb_route_table t = like(&p, 10000, 1, &rep);
    rb_route_table_free(&t);
    /* GitHub: 21 prefixes at depth 1 hold 16 of 203 routes; 10,000 routes
     * put 788 at depth 1 (16 x 10,000 / 203), at most 9 a path: at least
     * 88 children of the root */
    cr_expect_eq(rep.profile_root_fanout, 21);
    cr_expect_geq(rep.root_fanout, 88, "%u", rep.root_fanout);
    t = like(&p, 100, 1, &rep);
    rb_route_table_free(&t);
    cr_expect_lt(rep.root_fanout, 21);
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
             "'%s/routebench' corpus gen --like '%s' --routes 2000 --seed 3 --out /tmp/rb_like_t "
             "| grep -q 'widened at the root'",
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
        "--generator v1 --routes 10 --seed 1 --out /tmp/x",
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
 * globs: a table like Twilio's has its template prefixes at its depths
 * and rate (written as globs, the kinds distance would be at least their
 * share), and no glob, which a router without globs would refuse. */
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
    rb_profile_distance d;
    rb_profile_compare(&p, &got, &d);
    cr_expect_lt(d.hist[RB_PH_KINDS], share / 4, "kinds distance %.3f, template share %.3f",
                 d.hist[RB_PH_KINDS], share);
    cr_expect_lt(template_share(&got), share + 0.02);
    cr_expect_gt(template_share(&got), share - 0.02);
}
