/*
 * test_glob.c — the glob router (routers/glob.c) against linear and against
 * hand-computed answers: spans of '**' (leftmost-shortest), priority ties,
 * 405 masks, a seeded differential test on glob-heavy tables, bounded
 * search cost on adversarial inputs (steps, not time), limits, and
 * allocation failure at every allocation.
 */
#include "glob.h"
#include "rb_test.h"
#include "rng.h"
#include "router.h"
#include "seed.h"
#include "table.h"
#include "verify.h"

#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------- */

typedef struct route_def {
    int method;
    const char *pattern;
} route_def;

/* The tables' random choices: splitmix64 outputs, reduced mod n. */
static uint32_t rng_below(uint64_t *s, uint32_t n)
{
    return (uint32_t)(rb_splitmix64(s) % n);
}

/* A glob router used through its ops table (so the test holds the
 * implementation pointer the hooks take) next to a linear router used
 * through the public API.  Routes linear refuses (duplicates) are not given
 * to glob: the front end would refuse them in the same way. */
typedef struct pair {
    void *glob;
    rb_router *linear;
    uint32_t next_id;
} pair;

static void pair_init_seeded(pair *p, uint64_t seed)
{
    rb_error err;
    rb_config cfg = {rb__default_allocator(), seed}; /* the front end never passes NULL */
    cr_assert_eq(rb_router_create("linear", NULL, &p->linear, &err), RB_OK);
    cr_assert_eq(rb__glob_ops.create(&cfg, &p->glob, &err), RB_OK);
    p->next_id = 0;
}

static void pair_init(pair *p)
{
    pair_init_seeded(p, 1);
}

/* Add to both; returns linear's status (glob must agree). */
static int pair_add(pair *p, int method, const char *pattern)
{
    rb_error err;
    size_t len = strlen(pattern);
    uint32_t id = p->next_id;
    int rc = rb_router_add(p->linear, method, pattern, len, id, &err);
    if (rc != RB_OK) return rc;
    rb_pattern pat;
    cr_assert_eq(rb_pattern_parse(pattern, len, NULL, &pat, &err), RB_OK);
    rb_route route = {method, id, &pat};
    int grc = rb__glob_ops.add(p->glob, &route, &err);
    rb_pattern_free(&pat);
    cr_assert_eq(grc, RB_OK, "glob refused %s: %s", pattern, err.message);
    p->next_id++;
    return RB_OK;
}

static void pair_build(pair *p)
{
    rb_error err;
    cr_assert_eq(rb_router_build(p->linear, &err), RB_OK);
    cr_assert_eq(rb__glob_ops.build(p->glob, &err), RB_OK);
    cr_assert_eq(rb__glob_ops.check(p->glob, &err), RB_OK, "glob check: %s", err.message);
}

static void pair_free(pair *p)
{
    rb__glob_ops.destroy(p->glob);
    rb_router_destroy(p->linear);
}

/* The step bound stated in glob.c's header. */
static uint64_t step_bound(const void *impl, size_t len)
{
    rb__glob_size sz = rb__glob_size_of(impl);
    return 64u * ((uint64_t)sz.nodes + sz.glob_bytes) * (len + 1);
}

/* Every lookup in this file goes through here: the lookup op, and the
 * step-counting hook, which must agree and stay within the bound. */
static void glob_lookup(const void *impl, int method, const char *path, size_t len, rb_match *m)
{
    memset(m, 0xa5, sizeof *m);
    int rc = rb__glob_ops.lookup(impl, method, path, len, m);
    cr_assert_eq(rc, m->outcome);
    rb_match again;
    uint64_t steps = 0;
    rb__glob_lookup_steps(impl, method, path, len, &again, &steps);
    cr_assert(rb_match_equal(m, &again), "the step-counting hook answers differently");
    cr_assert_leq(steps, step_bound(impl, len), "%llu steps on %.*s exceed the bound",
                  (unsigned long long)steps, (int)len, path);
}

/* Does glob agree with linear on (method, path)?  Fails with both answers. */
static void expect_same(const pair *p, int method, const char *path, size_t len, const char *ctx)
{
    rb_match g, l;
    glob_lookup(p->glob, method, path, len, &g);
    rb_router_lookup(p->linear, method, path, len, &l);
    char label[200];
    snprintf(label, sizeof label, "glob, %s", ctx);
    rbt_expect_same_match(label, method, path, len, &g, &l);
}

static void pair_from(pair *p, const route_def *defs, size_t n)
{
    pair_init(p);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(pair_add(p, defs[i].method, defs[i].pattern), RB_OK, "%s", defs[i].pattern);
    pair_build(p);
}

/* Look up in glob, check outcome/id and spans given as {offset, len}. */
static void expect_found(const pair *p, int method, const char *path, uint32_t id, uint32_t nspans,
                         const rb_span *spans)
{
    rb_match m;
    glob_lookup(p->glob, method, path, strlen(path), &m);
    char buf[256];
    rb_match_format(&m, buf, sizeof buf);
    cr_assert_eq(m.outcome, RB_FOUND, "%s: %s", path, buf);
    cr_assert_eq(m.route_id, id, "%s: %s", path, buf);
    cr_assert_eq(m.nparams, nspans, "%s: %s", path, buf);
    for (uint32_t i = 0; i < nspans; i++) {
        cr_assert_eq(m.params[i].offset, spans[i].offset, "%s capture %u: %s", path, i, buf);
        cr_assert_eq(m.params[i].len, spans[i].len, "%s capture %u: %s", path, i, buf);
    }
    expect_same(p, method, path, strlen(path), "hand case");
}

static void expect_outcome(const pair *p, int method, const char *path, int outcome,
                           uint32_t allowed)
{
    rb_match m;
    glob_lookup(p->glob, method, path, strlen(path), &m);
    char buf[256];
    rb_match_format(&m, buf, sizeof buf);
    cr_assert_eq(m.outcome, outcome, "%s %s: %s", rb_method_name(method), path, buf);
    if (outcome == RB_METHOD_NOT_ALLOWED)
        cr_assert_eq(m.allowed, allowed, "%s %s: %s", rb_method_name(method), path, buf);
    expect_same(p, method, path, strlen(path), "hand case");
}

#define SPANS(...) (sizeof((rb_span[]){__VA_ARGS__}) / sizeof(rb_span)), ((rb_span[]){__VA_ARGS__})

/* ---- registration, shipped corpus ----------------------------------------- */

Test(glob, is_registered_with_every_feature)
{
    cr_assert_eq(rb_registry_find("glob"), &rb__glob_ops);
    cr_assert_eq(rb_ops_features(&rb__glob_ops),
                 RB_FEAT_PARAMS | RB_FEAT_CATCHALL | RB_FEAT_GLOB | RB_FEAT_TEMPLATE);
}

/* Rule: the semantics corpus (one request per rule) agrees with EXPECTED
 * and with linear, through the public API. */
Test(glob, semantics_corpus_agrees_with_expected_and_linear)
{
    rb_route_table routes = {0};
    rb_request_table reqs = {0};
    rb_error err;
    cr_assert_eq(rb_route_table_read(RB_SOURCE_DIR "/corpus/data/semantics.routes", &routes, &err),
                 RB_OK, "%s", err.message);
    cr_assert_eq(
        rb_request_table_read(RB_SOURCE_DIR "/corpus/data/semantics.requests", &reqs, &err), RB_OK,
        "%s", err.message);
    rb_verify_report rep;
    cr_assert_eq(rb_verify(&rb__glob_ops, &routes, "semantics", &reqs, &rep, &err), RB_OK, "%s",
                 err.message);
    cr_assert_eq(rep.refused, 0);
    cr_assert_eq(rep.agree_expected, reqs.count);
    cr_assert_eq(rep.agree_linear, reqs.count);
    rb_route_table_free(&routes);
    rb_request_table_free(&reqs);
}

/* ---- hand cases ---------------------------------------------------------------- */

/* Rule: '**' spans are leftmost-shortest; an empty one sits where the next
 * segment would start (the path length at the end). */
Test(glob, globstar_spans_are_leftmost_shortest)
{
    static const route_def defs[] = {
        {RB_GET, "/v2/**/manifests/:ref"}, /* 0 */
        {RB_GET, "/a/**/b/**/c"},          /* 1 */
        {RB_GET, "/x/**"},                 /* 2 */
        {RB_GET, "/d/**/{*rest}"},         /* 3 */
        {RB_GET, "/s/**/**/z"},            /* 4 */
    };
    pair p;
    pair_from(&p, defs, sizeof defs / sizeof defs[0]);
    /* "/v2/library/ubuntu/manifests/22.04": library.. at 4, "22.04" at 29 */
    expect_found(&p, RB_GET, "/v2/library/ubuntu/manifests/22.04", 0, SPANS({4, 14}, {29, 5}));
    expect_found(&p, RB_GET, "/v2/manifests/x", 0, SPANS({4, 0}, {14, 1}));
    expect_found(&p, RB_GET, "/a/b/c", 1, SPANS({3, 0}, {5, 0}));
    /* both '**' could take the middle "b": the first takes none */
    expect_found(&p, RB_GET, "/a/b/b/c", 1, SPANS({3, 0}, {5, 1}));
    expect_found(&p, RB_GET, "/a/q/b/r/s/c", 1, SPANS({3, 1}, {7, 3}));
    expect_found(&p, RB_GET, "/x", 2, SPANS({2, 0}));
    expect_found(&p, RB_GET, "/x/", 2, SPANS({3, 0}));
    expect_found(&p, RB_GET, "/x/a/b", 2, SPANS({3, 3}));
    expect_found(&p, RB_GET, "/x//", 2, SPANS({3, 1}));
    expect_found(&p, RB_GET, "/d/a/b", 3, SPANS({3, 0}, {3, 3}));
    expect_outcome(&p, RB_GET, "/d/", RB_NOT_FOUND, 0);
    expect_found(&p, RB_GET, "/s/z", 4, SPANS({3, 0}, {3, 0}));
    expect_found(&p, RB_GET, "/s/a/b/z", 4, SPANS({3, 0}, {3, 3}));
    pair_free(&p);
}

/* Rules: rank order; specific method before '*'; more literal bytes; lower
 * id; glob segments capture the whole path segment. */
Test(glob, priority_ties_between_globs)
{
    static const route_def defs[] = {
        {RB_ANY, "/n/xy*"},      /* 0 */
        {RB_GET, "/n/?y"},       /* 1 */
        {RB_GET, "/t/a*"},       /* 2 */
        {RB_GET, "/t/*a*"},      /* 3 */
        {RB_GET, "/t/ab*"},      /* 4 */
        {RB_GET, "/s/[!a]*"},    /* 5 */
        {RB_GET, "/s/b"},        /* 6 */
        {RB_GET, "/s/:x"},       /* 7 */
        {RB_GET, "/s/**"},       /* 8 */
        {RB_GET, "/e/*"},        /* 9 */
        {RB_GET, "/e/{*rest}"},  /* 10 */
        {RB_GET, "/i/img-??.*"}, /* 11 */
        {RB_GET, "/i/*.png"},    /* 12 */
    };
    pair p;
    pair_from(&p, defs, sizeof defs / sizeof defs[0]);
    /* a specific method beats '*' before literal bytes count */
    expect_found(&p, RB_GET, "/n/xy", 1, SPANS({3, 2}));
    expect_found(&p, RB_PUT, "/n/xy", 0, SPANS({3, 2}));
    /* same ranks, method and literal bytes: the lower id */
    expect_found(&p, RB_GET, "/t/aa", 2, SPANS({3, 2}));
    expect_found(&p, RB_GET, "/t/ba", 3, SPANS({3, 2}));
    expect_found(&p, RB_GET, "/t/abba", 4, SPANS({3, 4}));
    expect_found(&p, RB_GET, "/s/b", 6, SPANS());
    expect_found(&p, RB_GET, "/s/c", 7, SPANS({3, 1}));
    expect_found(&p, RB_GET, "/s/a/b", 8, SPANS({3, 3}));
    expect_found(&p, RB_GET, "/s", 8, SPANS({2, 0}));
    /* '*' matches the empty segment; a catch-all needs a byte */
    expect_found(&p, RB_GET, "/e/", 9, SPANS({3, 0}));
    expect_found(&p, RB_GET, "/e/q", 9, SPANS({3, 1}));
    expect_found(&p, RB_GET, "/e/q/r", 10, SPANS({3, 3}));
    /* img-??.* has 5 literal bytes, *.png 4 */
    expect_found(&p, RB_GET, "/i/img-01.png", 11, SPANS({3, 10}));
    expect_found(&p, RB_GET, "/i/img-1.png", 12, SPANS({3, 9}));
    pair_free(&p);
}

/* Rule: no route of the method but one of another: 405 with every method
 * whose route matched. */
Test(glob, method_not_allowed_masks)
{
    static const route_def defs[] = {
        {RB_GET, "/m/*.png"},     /* 0 */
        {RB_POST, "/m/*.png"},    /* 1 */
        {RB_DELETE, "/m/**"},     /* 2 */
        {RB_PATCH, "/m/{*rest}"}, /* 3 */
        {RB_ANY, "/w/**/z"},      /* 4 */
        {RB_OPTIONS, "/w/a/*"},   /* 5 */
        {RB_TRACE, "/k/**/:id"},  /* 6 */
        {RB_HEAD, "/k/[0-9]*"},   /* 7 */
    };
    pair p;
    pair_from(&p, defs, sizeof defs / sizeof defs[0]);
    uint32_t all4 = RB_METHOD_BIT(RB_GET) | RB_METHOD_BIT(RB_POST) | RB_METHOD_BIT(RB_DELETE) |
                    RB_METHOD_BIT(RB_PATCH);
    expect_outcome(&p, RB_PUT, "/m/a.png", RB_METHOD_NOT_ALLOWED, all4);
    expect_outcome(&p, RB_HEAD, "/m/x/y", RB_METHOD_NOT_ALLOWED,
                   RB_METHOD_BIT(RB_DELETE) | RB_METHOD_BIT(RB_PATCH));
    expect_outcome(&p, RB_HEAD, "/m", RB_METHOD_NOT_ALLOWED, RB_METHOD_BIT(RB_DELETE));
    expect_found(&p, RB_GET, "/m/a.png", 0, SPANS({3, 5}));
    expect_found(&p, RB_DELETE, "/m/a.png", 2, SPANS({3, 5}));
    expect_found(&p, RB_PUT, "/w/a/z", 4, SPANS({3, 1}));
    expect_outcome(&p, RB_PUT, "/w/a/q", RB_METHOD_NOT_ALLOWED, RB_METHOD_BIT(RB_OPTIONS));
    expect_outcome(&p, RB_PUT, "/w/b/q/r", RB_NOT_FOUND, 0);
    expect_outcome(&p, RB_GET, "/w/a/q", RB_METHOD_NOT_ALLOWED, RB_METHOD_BIT(RB_OPTIONS));
    expect_outcome(&p, RB_GET, "/k/7", RB_METHOD_NOT_ALLOWED,
                   RB_METHOD_BIT(RB_TRACE) | RB_METHOD_BIT(RB_HEAD));
    expect_outcome(&p, RB_GET, "/k/x/7", RB_METHOD_NOT_ALLOWED, RB_METHOD_BIT(RB_TRACE));
    expect_outcome(&p, RB_GET, "", RB_NOT_FOUND, 0);
    expect_outcome(&p, RB_GET, "m/a.png", RB_NOT_FOUND, 0);
    pair_free(&p);
}

/* ---- seeded differential test ------------------------------------------------ */

static const char *const static_pool[] = {"a", "b", "ab", "", "a.png", "img-1.png", "v2"};
static const char *const glob_pool[] = {
    "*",   "a*", "*a",   "*.png",  "?",     "a?",      "[ab]*", "[!a]*", "*a*",
    "a*b", "?*", "*b*a", "[a-c]?", "img-*", "*-?.png", "??",    "[!ab]", "*.*",
};
static const char *const glob_pre[] = {"", "", "a", "img-", "ab", "x", "b."};
static const char *const glob_mid[] = {"*", "?", "[ab]", "[!a]", "*?", "[a-c]*", "*a*"};
static const char *const glob_suf[] = {"", "", ".png", ".jpg", "a", "b", "-1.png", "gz"};
static const char *const path_pool[] = {"a",  "b",  "ab",    "",      "a.png",  "b.png",
                                        "aa", "ba", "abc",   "x",     "aab",    "img-1.png",
                                        "v2", "c",  "x.jpg", "ab.gz", "img-ab", "b.a"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static size_t append(char *buf, size_t n, size_t cap, const char *s)
{
    size_t l = strlen(s);
    if (n + l < cap) {
        memcpy(buf + n, s, l);
        n += l;
    }
    buf[n < cap ? n : cap - 1] = '\0';
    return n;
}

/* A random glob text: from the pool, or prefix + wildcard + suffix. */
static size_t random_glob(uint64_t *rng, char *buf, size_t n, size_t cap)
{
    if (rng_below(rng, 3) == 0)
        return append(buf, n, cap, glob_pool[rng_below(rng, COUNT(glob_pool))]);
    n = append(buf, n, cap, glob_pre[rng_below(rng, COUNT(glob_pre))]);
    n = append(buf, n, cap, glob_mid[rng_below(rng, COUNT(glob_mid))]);
    return append(buf, n, cap, glob_suf[rng_below(rng, COUNT(glob_suf))]);
}

static void random_pattern(uint64_t *rng, char *buf, size_t cap, bool wide)
{
    size_t n = 0;
    uint32_t nsegs = 1 + rng_below(rng, 5);
    buf[0] = '\0';
    for (uint32_t i = 0; i < nsegs; i++) {
        n = append(buf, n, cap, "/");
        uint32_t k = rng_below(rng, 100);
        if (i + 1 == nsegs && k < 8) {
            n = append(buf, n, cap, rng_below(rng, 2) ? "*rest" : "{*rest}");
        } else if (k < 40) {
            n = append(buf, n, cap, static_pool[rng_below(rng, COUNT(static_pool))]);
        } else if (k < 50) {
            char name[16];
            snprintf(name, sizeof name, rng_below(rng, 2) ? ":p%u" : "{p%u}", i);
            n = append(buf, n, cap, name);
        } else if (k < 82 || (wide && k < 90)) {
            n = random_glob(rng, buf, n, cap);
        } else {
            n = append(buf, n, cap, "**");
        }
    }
}

/* A path: random segments, or one route pattern filled in. */
static size_t random_path(uint64_t *rng, const char *const *patterns, size_t npatterns, char *buf,
                          size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    if (npatterns == 0 || rng_below(rng, 3) == 0) {
        uint32_t nsegs = 1 + rng_below(rng, 7);
        for (uint32_t i = 0; i < nsegs; i++) {
            n = append(buf, n, cap, "/");
            n = append(buf, n, cap, path_pool[rng_below(rng, COUNT(path_pool))]);
        }
        return n;
    }
    const char *pat = patterns[rng_below(rng, (uint32_t)npatterns)];
    const char *s = pat;
    while (*s == '/') {
        const char *e = strchr(s + 1, '/');
        size_t l = e ? (size_t)(e - s - 1) : strlen(s + 1);
        char seg[64];
        snprintf(seg, sizeof seg, "%.*s", (int)l, s + 1);
        if (strcmp(seg, "**") == 0) {
            for (uint32_t k = rng_below(rng, 4); k > 0; k--) {
                n = append(buf, n, cap, "/");
                n = append(buf, n, cap, path_pool[rng_below(rng, COUNT(path_pool))]);
            }
        } else if (seg[0] == ':' || seg[0] == '{' || seg[0] == '*' || strpbrk(seg, "*?[")) {
            n = append(buf, n, cap, "/");
            n = append(buf, n, cap, path_pool[rng_below(rng, COUNT(path_pool))]);
            if (seg[0] == '*' || seg[1] == '*')
                for (uint32_t k = rng_below(rng, 3); k > 0; k--) {
                    n = append(buf, n, cap, "/");
                    n = append(buf, n, cap, path_pool[rng_below(rng, COUNT(path_pool))]);
                }
        } else {
            n = append(buf, n, cap, "/");
            n = append(buf, n, cap, seg);
        }
        if (!e) break;
        s = e;
    }
    if (n == 0) n = append(buf, n, cap, "/");
    if (rng_below(rng, 8) == 0) n = append(buf, n, cap, "/");
    return n;
}

static void differential_round(uint64_t seed, uint32_t nroutes, uint32_t nlookups, bool wide)
{
    static const int methods[] = {RB_GET, RB_GET, RB_POST, RB_PUT, RB_ANY, RB_DELETE};
    uint64_t rng = seed;
    pair p;
    pair_init(&p);
    char(*texts)[128] = malloc((size_t)nroutes * sizeof *texts);
    const char **accepted = malloc((size_t)nroutes * sizeof *accepted);
    size_t naccepted = 0;
    for (uint32_t i = 0; i < nroutes; i++) {
        random_pattern(&rng, texts[i], sizeof texts[i], wide);
        int method = methods[rng_below(&rng, COUNT(methods))];
        int rc = pair_add(&p, method, texts[i]);
        /* duplicates, and '*name' segments that are catch-alls not at the
         * end, are refused by the front end before glob sees them */
        cr_assert(rc == RB_OK || rc == RB_EDUPLICATE || rc == RB_EPATTERN, "seed %llu: %s: %d",
                  (unsigned long long)seed, texts[i], rc);
        if (rc == RB_OK) accepted[naccepted++] = texts[i];
    }
    pair_build(&p);
    char ctx[64];
    snprintf(ctx, sizeof ctx, "seed %llu", (unsigned long long)seed);
    for (uint32_t i = 0; i < nlookups; i++) {
        char path[256];
        size_t len = random_path(&rng, accepted, naccepted, path, sizeof path);
        int method = (int)rng_below(&rng, RB_METHOD_COUNT);
        if (method > RB_PUT && rng_below(&rng, 2)) method = RB_GET;
        expect_same(&p, method, path, len, ctx);
    }
    free(texts);
    free(accepted);
    pair_free(&p);
}

/* Rule: glob gives linear's full answer (outcome, id, spans, 405 mask) on
 * glob-heavy random tables, small (ties, empty segments, several '**')
 * and large (many glob children at one node: the anchored search). */
Test(glob, differential_against_linear_small_tables)
{
    for (uint64_t seed = 1; seed <= 400; seed++)
        differential_round(seed, 4 + (uint32_t)(seed % 37), 150, false);
}

Test(glob, differential_against_linear_large_tables)
{
    for (uint64_t seed = 1000; seed < 1012; seed++)
        differential_round(seed, 300 + (uint32_t)(seed % 7) * 100, 1500, true);
}

/* ---- bounded cost: steps on adversarial inputs ---------------------------------- */

static uint64_t steps_of(const pair *p, int method, const char *path, size_t len)
{
    rb_match g, l;
    uint64_t steps = 0;
    rb__glob_lookup_steps(p->glob, method, path, len, &g, &steps);
    rb_router_lookup(p->linear, method, path, len, &l);
    cr_assert(rb_match_equal(&g, &l), "adversarial path of %zu bytes: glob and linear differ", len);
    uint64_t bound = step_bound(p->glob, len);
    cr_assert_leq(steps, bound, "%llu steps exceed the bound %llu", (unsigned long long)steps,
                  (unsigned long long)bound);
    return steps;
}

/* "/" + n copies of seg joined by "/" + tail */
static size_t repeat_path(char *buf, size_t cap, const char *seg, size_t n, const char *tail)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        len = append(buf, len, cap, "/");
        len = append(buf, len, cap, seg);
    }
    return append(buf, len, cap, tail);
}

/* Doubling the input must not more than double the steps (+ slack), i.e.
 * the growth is linear in the input, not exponential. */
static void check_growth(const char *name, const uint64_t *steps, const size_t *sizes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        cr_log_info("adversarial %s: input %zu -> %llu steps", name, sizes[i],
                    (unsigned long long)steps[i]);
        if (i > 0)
            cr_assert_leq(steps[i], steps[i - 1] * 5 / 2, "%s: steps grow too fast at size %zu",
                          name, sizes[i]);
    }
}

Test(glob, adversarial_nested_globstars_cost_is_linear)
{
    static const route_def defs[] = {
        {RB_GET, "/**/**/**/**/x"},
        {RB_GET, "/**/a/**/a/**/a/**/b"},
        {RB_GET, "/**/**/**/**/**/**/**/**/y/z"},
    };
    pair p;
    pair_from(&p, defs, COUNT(defs));
    static char path[64 * 1024];
    size_t sizes[] = {16, 32, 64, 128, 256, 512, 1024};
    uint64_t miss[COUNT(sizes)], hit[COUNT(sizes)];
    for (size_t i = 0; i < COUNT(sizes); i++) {
        size_t len = repeat_path(path, sizeof path, "a", sizes[i], "/q");
        miss[i] = steps_of(&p, RB_GET, path, len);
        len = repeat_path(path, sizeof path, "a", sizes[i], "/x");
        hit[i] = steps_of(&p, RB_GET, path, len);
    }
    /* one check that would fail without the visited set: 64 segments */
    cr_assert_lt(miss[2], 20000, "64 segments took %llu steps", (unsigned long long)miss[2]);
    check_growth("'/**/**/**/**/x' and friends, miss, segments", miss, sizes, COUNT(sizes));
    check_growth("'/**/**/**/**/x' and friends, hit, segments", hit, sizes, COUNT(sizes));
    pair_free(&p);
}

Test(glob, adversarial_glob_segment_cost_is_bounded)
{
    static const route_def defs[] = {
        {RB_GET, "/*a*a*a*a*b"},          /* anchored: "aaa..." never tried */
        {RB_GET, "/*a*a*a*a*[b]"},        /* unanchored: always tried */
        {RB_GET, "/*aaaaaaaaaaaaaaa[b]"}, /* the matcher's worst case */
        {RB_GET, "/**/*a*a*a*a*[b]/c"},   {RB_GET, "/**/*aaaaaaaaaaaaaaa[b]/c"},
        {RB_GET, "/f/[!b]*a?a*a*a*b"},
    };
    pair p;
    pair_from(&p, defs, COUNT(defs));
    static char path[64 * 1024];
    size_t sizes[] = {512, 1024, 2048, 4096, 8192};
    uint64_t one[COUNT(sizes)], many[COUNT(sizes)];
    for (size_t i = 0; i < COUNT(sizes); i++) {
        /* one segment of a's */
        size_t len = 1;
        path[0] = '/';
        memset(path + 1, 'a', sizes[i]);
        len += sizes[i];
        one[i] = steps_of(&p, RB_GET, path, len);
        /* sizes[i] / 64 segments of 64 a's each */
        char seg[65];
        memset(seg, 'a', 64);
        seg[64] = '\0';
        len = repeat_path(path, sizeof path, seg, sizes[i] / 64, "");
        many[i] = steps_of(&p, RB_GET, path, len);
    }
    check_growth("globs '*a*a*a*a*[b]', '*a..a[b]' on one segment of a's, bytes", one, sizes,
                 COUNT(sizes));
    check_growth("the same after '**' on 64-byte segments of a's, bytes", many, sizes,
                 COUNT(sizes));
    pair_free(&p);
}

/* Many routes with nested '**' sharing a prefix, each nested '**' reached
 * on the path: steps grow with the table, linearly. */
Test(glob, adversarial_table_growth_cost_is_linear)
{
    size_t sizes[] = {8, 16, 32, 64};
    uint64_t steps[COUNT(sizes)];
    static char path[4096];
    size_t len = 0;
    for (size_t k = 0; k < 64; k++) {
        char seg[32];
        snprintf(seg, sizeof seg, "/k/x%zu", k);
        len = append(path, len, sizeof path, seg);
    }
    len = append(path, len, sizeof path, "/end");
    for (size_t i = 0; i < COUNT(sizes); i++) {
        pair p;
        pair_init(&p);
        for (size_t k = 0; k < sizes[i]; k++) {
            char pat[64];
            snprintf(pat, sizeof pat, "/**/k*/**/x%zu/**/e?d", k);
            cr_assert_eq(pair_add(&p, RB_POST, pat), RB_OK);
            snprintf(pat, sizeof pat, "/**/k/**/[!y]%zu/**/*q", k);
            cr_assert_eq(pair_add(&p, RB_GET, pat), RB_OK);
        }
        pair_build(&p);
        steps[i] = steps_of(&p, RB_GET, path, len);
        pair_free(&p);
    }
    check_growth("'/k/x0/k/x1/.../end' against 2N routes with nested '**', N", steps, sizes,
                 COUNT(sizes));
}

/* ---- limits --------------------------------------------------------------------- */

Test(glob, limits_are_refused_at_add_and_leave_the_router_unchanged)
{
    rb_router *r;
    rb_error err;
    cr_assert_eq(rb_router_create("glob", NULL, &r, &err), RB_OK);
    static char pat[2048];
    size_t n = repeat_path(pat, sizeof pat, "s", RB__GLOB_MAX_DEPTH, "");
    cr_assert_eq(rb_router_add(r, RB_GET, pat, n, 0, &err), RB_OK, "%s", err.message);
    n = repeat_path(pat, sizeof pat, "s", RB__GLOB_MAX_DEPTH, "/t");
    cr_assert_eq(rb_router_add(r, RB_GET, pat, n, 1, &err), RB_ELIMIT);
    cr_assert_eq(err.offset, n - 1);
    uint32_t id = 1;
    for (int k = 0; k < RB__GLOB_MAX_NESTED_STARS; k++, id++) {
        n = (size_t)snprintf(pat, sizeof pat, "/**/n%d/**", k);
        cr_assert_eq(rb_router_add(r, RB_GET, pat, n, id, &err), RB_OK, "%s", err.message);
    }
    n = (size_t)snprintf(pat, sizeof pat, "/**/over/**");
    cr_assert_eq(rb_router_add(r, RB_GET, pat, n, id, &err), RB_ELIMIT);
    cr_assert_eq(err.offset, 9);
    /* one '**' a pattern is never nested */
    n = (size_t)snprintf(pat, sizeof pat, "/over/**");
    cr_assert_eq(rb_router_add(r, RB_GET, pat, n, id, &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_router_count(r), (size_t)RB__GLOB_MAX_NESTED_STARS + 2);
    cr_assert_eq(rb_router_build(r, &err), RB_OK);
    rb_match m;
    cr_assert_eq(rb_router_lookup(r, RB_GET, "/a/n7/b/c", 9, &m), RB_FOUND);
    cr_assert_eq(m.route_id, 8);
    cr_assert_eq(rb_router_lookup(r, RB_GET, "/over/x", 7, &m), RB_FOUND);
    cr_assert_eq(m.route_id, id);
    cr_assert_eq(rb_router_add(r, RB_GET, "/late", 5, 99, &err), RB_ESTATE);
    rb_router_destroy(r);
}

/* A path far deeper than any pattern: '**' walks it in a loop, not deeper
 * recursion. */
Test(glob, very_deep_path)
{
    static const route_def defs[] = {{RB_GET, "/**/x"}, {RB_GET, "/**/{*rest}"}};
    pair p;
    pair_from(&p, defs, COUNT(defs));
    static char path[40000];
    size_t len = repeat_path(path, sizeof path, "a", 15000, "/x");
    expect_found(&p, RB_GET, path, 0, SPANS({1, (uint32_t)len - 3}));
    len = repeat_path(path, sizeof path, "a", 15000, "/y");
    expect_found(&p, RB_GET, path, 1, SPANS({1, 0}, {1, (uint32_t)len - 1}));
    pair_free(&p);
}

/* ---- allocation failure --------------------------------------------------------- */

static const route_def alloc_defs[] = {
    {RB_GET, "/users"},
    {RB_GET, "/users/:id"},
    {RB_GET, "/users/me"},
    {RB_POST, "/users/:id/posts"},
    {RB_GET, "/static/{*path}"},
    {RB_GET, "/img/*.png"},
    {RB_GET, "/img/img-*"},
    {RB_ANY, "/img/[a-c]*"},
    {RB_GET, "/**/x/**/y"},
    {RB_GET, "/v2/**/manifests/:ref"},
    {RB_PUT, "/img/**"},
    {RB_GET, "/"},
    {RB_GET, "/a/*"},
    {RB_GET, "/a/b*"},
    {RB_GET, "/a/c*"},
    {RB_GET, "/a/d*"},
    {RB_GET, "/a/e*"},
    {RB_GET, "/a/*.f"},
    {RB_GET, "/a/*.g"},
    {RB_GET, "/a/?h"},
    {RB_GET, "/a/[!i]*"},
    {RB_GET, "/a/jj*"},
    {RB_GET, "/a/*.kk"},
};

static const char *const alloc_paths[] = {
    "/users",     "/users/7",   "/users/me", "/users/7/posts", "/static/a/b",
    "/img/q.png", "/img/img-3", "/img/b",    "/q/x/r/y",       "/v2/a/manifests/1",
    "/img/a/b",   "/",          "/a/bq",     "/a/q.f",         "/a/zh",
    "/a/jjk",     "/a/x.kk",    "/a/i",      "/nope",
};

/* Rules: allocation failure is RB_ENOMEM, never a crash; a failed add
 * leaves the router unchanged (the same add then succeeds); a failed build
 * can be retried; memory() equals the bytes held; nothing leaks. */
Test(glob, every_failed_allocation_is_enomem_and_leaks_nothing)
{
    /* the hand set plus enough static nodes to make the build index grow */
    enum { EXTRA = 150, NDEFS = COUNT(alloc_defs) + EXTRA };
    static char extra[EXTRA][32];
    route_def defs[NDEFS];
    for (size_t i = 0; i < NDEFS; i++) {
        if (i < COUNT(alloc_defs)) {
            defs[i] = alloc_defs[i];
            continue;
        }
        snprintf(extra[i - COUNT(alloc_defs)], sizeof extra[0], "/r%zu/%s", i, i % 3 ? "x" : "*.y");
        defs[i] = (route_def){RB_GET, extra[i - COUNT(alloc_defs)]};
    }
    pair ref;
    pair_from(&ref, defs, NDEFS);
    bool completed = false;
    size_t fail_at = 0;
    for (; !completed; fail_at++) {
        rbt_failing_allocator c;
        rbt_failing_allocator_init(&c, fail_at + 1);
        rb_config cfg = {&c.base, 0};
        rb_error err;
        void *g = NULL;
        int rc = rb__glob_ops.create(&cfg, &g, &err);
        if (rc != RB_OK) {
            cr_assert_eq(rc, RB_ENOMEM);
            cr_assert_eq(c.live_blocks, 0);
            continue;
        }
        for (size_t i = 0; i < NDEFS; i++) {
            rb_pattern pat;
            const char *t = defs[i].pattern;
            cr_assert_eq(rb_pattern_parse(t, strlen(t), NULL, &pat, &err), RB_OK);
            rb_route route = {defs[i].method, (uint32_t)i, &pat};
            rc = rb__glob_ops.add(g, &route, &err);
            if (rc != RB_OK) {
                cr_assert_eq(rc, RB_ENOMEM, "fail_at %zu: add gave %d", fail_at, rc);
                /* the route table may have grown: memory() still tells the truth */
                cr_assert_eq(rb__glob_ops.memory(g), c.live_bytes, "fail_at %zu", fail_at);
                c.fail_at = 0;
                rc = rb__glob_ops.add(g, &route, &err);
                cr_assert_eq(rc, RB_OK);
            }
            rb_pattern_free(&pat);
        }
        rc = rb__glob_ops.build(g, &err);
        if (rc != RB_OK) {
            cr_assert_eq(rc, RB_ENOMEM, "fail_at %zu: build gave %d", fail_at, rc);
            c.fail_at = 0;
            cr_assert_eq(rb__glob_ops.build(g, &err), RB_OK);
        }
        cr_assert_eq(rb__glob_ops.check(g, &err), RB_OK, "fail_at %zu: %s", fail_at, err.message);
        cr_assert_eq(rb__glob_ops.memory(g), c.live_bytes, "fail_at %zu: memory() %zu, held %zu",
                     fail_at, rb__glob_ops.memory(g), c.live_bytes);
        for (size_t i = 0; i < COUNT(alloc_paths); i++) {
            for (int method = 0; method < RB_METHOD_COUNT; method += 2) {
                rb_match got, want;
                const char *path = alloc_paths[i];
                glob_lookup(g, method, path, strlen(path), &got);
                glob_lookup(ref.glob, method, path, strlen(path), &want);
                cr_assert(rb_match_equal(&got, &want), "fail_at %zu: %s differs", fail_at, path);
                expect_same(&ref, method, path, strlen(path), "reference");
            }
        }
        rb__glob_ops.destroy(g);
        cr_assert_eq(c.live_blocks, 0, "fail_at %zu: %zu blocks leaked", fail_at, c.live_blocks);
        cr_assert_eq(c.live_bytes, 0);
        /* a failed shrink is no error: the larger block is kept */
        completed = c.failed == 0;
    }
    cr_log_info("allocation failure injected at each of %zu allocations", fail_at - 1);
    cr_assert_gt(fail_at, 2 * NDEFS, "too few allocations to be a test of anything");
    pair_free(&ref);
}

/* The same through the public API (front end + glob): every failure is
 * RB_ENOMEM and nothing leaks. */
Test(glob, public_api_allocation_failure_leaks_nothing)
{
    bool completed = false;
    for (size_t fail_at = 0; !completed; fail_at++) {
        rbt_failing_allocator c;
        rbt_failing_allocator_init(&c, fail_at + 1);
        rb_config cfg = {&c.base, 0};
        rb_error err;
        rb_router *r = NULL;
        int rc = rb_router_create("glob", &cfg, &r, &err);
        for (size_t i = 0; rc == RB_OK && i < COUNT(alloc_defs); i++) {
            const char *t = alloc_defs[i].pattern;
            rc = rb_router_add(r, alloc_defs[i].method, t, strlen(t), (uint32_t)i, &err);
        }
        if (rc == RB_OK) rc = rb_router_build(r, &err);
        cr_assert(rc == RB_OK || rc == RB_ENOMEM, "fail_at %zu: %d", fail_at, rc);
        completed = c.failed == 0;
        if (rc == RB_OK) {
            rb_match m;
            cr_assert_eq(rb_router_lookup(r, RB_GET, "/img/q.png", 10, &m), RB_FOUND);
            cr_assert_eq(m.route_id, 5);
        }
        rb_router_destroy(r);
        cr_assert_eq(c.live_blocks, 0, "fail_at %zu: %zu blocks leaked", fail_at, c.live_blocks);
    }
}

/* An empty router answers 404 to everything. */
Test(glob, empty_router_answers_404_to_everything)
{
    pair p;
    pair_from(&p, NULL, 0);
    expect_outcome(&p, RB_GET, "/", RB_NOT_FOUND, 0);
    expect_outcome(&p, RB_GET, "/a/b", RB_NOT_FOUND, 0);
    pair_free(&p);
}

/* ---- regressions (one per fixed bug, cause in a line) ------------------------ */

#define NFLOOD 2000

/* Build glob (explicit seed) and linear from the crafted routes plus one
 * glob route; every crafted path and some misses agree; returns glob's
 * longest probe sequence and copies describe() into desc. */
static uint32_t flood_round(uint64_t seed, char (*routes)[32], char *desc, size_t cap)
{
    pair p;
    pair_init_seeded(&p, seed);
    for (size_t i = 0; i < NFLOOD; i++) cr_assert_eq(pair_add(&p, RB_GET, routes[i]), RB_OK);
    cr_assert_eq(pair_add(&p, RB_GET, "/img/*.png"), RB_OK);
    pair_build(&p);
    for (size_t i = 0; i < NFLOOD; i += 7) {
        size_t len = strlen(routes[i]);
        expect_same(&p, RB_GET, routes[i], len, "crafted");
        expect_same(&p, RB_POST, routes[i], len, "crafted");
        routes[i][len - 1] ^= 1; /* a miss, hashed like the others */
        expect_same(&p, RB_GET, routes[i], len, "crafted miss");
        routes[i][len - 1] ^= 1;
    }
    uint32_t probe = rb__glob_max_probe(p.glob);
    snprintf(desc, cap, "%s", rb__glob_ops.describe(p.glob));
    pair_free(&p);
    return probe;
}

/* 21. Hash flooding: glob's static-children table was keyed by XXH3 seeded
 *    with the parent's index (public), and probed without a limit: 2,000
 *    crafted root children made every lookup walk ~2,000 slots (721 ns
 *    instead of 40).  Cause: no secret seed, no bound.  Now the key is
 *    seeded from rb_config.seed and no probe passes RB__PROBE_LIMIT: the
 *    old crafted set is harmless, and a set crafted against the new key
 *    under a known explicit seed makes build re-seed (describe says so). */
Test(glob, regression_21_crafted_static_children_cannot_flood_the_table)
{
    static char routes[NFLOOD][32];
    char desc[256];
    /* against the old key: XXH3 seeded with parent index 0 */
    rbt_craft_collisions(0, 12, "/", 1, NFLOOD, routes); /* the key hashes the segment */
    uint32_t probe = flood_round(5, routes, desc, sizeof desc);
    cr_expect_leq(probe, RB__PROBE_LIMIT, "the old crafted set still collides: %u slots", probe);
    cr_expect(strstr(desc, "re-seeded") == NULL, "%s", desc);
    /* against the new key of the root's children under explicit seed 5 */
    uint64_t key_seed = rb__seed_mix(5, RB__SALT_GLOB) ^ 0x9e3779b97f4a7c15ull;
    rbt_craft_collisions(key_seed, 12, "/", 1, NFLOOD, routes);
    probe = flood_round(5, routes, desc, sizeof desc);
    cr_expect_leq(probe, RB__PROBE_LIMIT, "%u slots", probe);
    cr_expect(strstr(desc, "re-seeded 1 time") != NULL, "the crafted set did not collide: %s",
              desc);
}

/* 23. Nested '**': 16 routes of 31 '**' each took 14 ms on an 8 KB path
 *    (linear 2.6 ms), because every nested '**' looped over every end of the
 *    path even when all it could reach lay behind a '**' expanded already,
 *    and the step bound counted a memchr as one step.  Now steps count
 *    bytes examined (glob.c, "Cost"), and such loops stop: these tables cost
 *    a few steps per path byte, whatever the number of '**'. */
Test(glob, regression_23_nested_globstars_cost_bytes_linear_in_the_path)
{
    static char pat[1024], path[32 * 1024 + 8];
    for (size_t family = 0; family < 3; family++) {
        pair p;
        pair_init(&p);
        for (int i = 0; i < 16; i++) {
            size_t n = 0;
            for (int k = 0; k < 31; k++) {
                n = append(pat, n, sizeof pat, "/**");
                char b[16] = "s";
                if (family == 1) b[0] = '\0';
                if (family == 2) snprintf(b, sizeof b, "a%d", k);
                if (b[0]) {
                    n = append(pat, n, sizeof pat, "/");
                    n = append(pat, n, sizeof pat, b);
                }
            }
            char e[16];
            snprintf(e, sizeof e, "/e%d", i);
            append(pat, n, sizeof pat, e);
            cr_assert_eq(pair_add(&p, RB_GET, pat), RB_OK, "%s", pat);
        }
        pair_build(&p);
        for (size_t kb = 8; kb <= 32; kb *= 4) {
            size_t len = 0;
            for (int k = 0; len + 8 < kb * 1024; k++) {
                char b[16];
                snprintf(b, sizeof b, family == 2 ? "/a%d" : "/s", k % 31);
                len = append(path, len, sizeof path, b);
            }
            for (int hit = 0; hit < 2; hit++) {
                size_t n = hit ? append(path, len, sizeof path, "/e3") : len;
                uint64_t steps = steps_of(&p, RB_GET, path, n);
                cr_expect_leq(steps, 8u * (n + 1), "family %zu, %zu bytes: %llu steps", family, n,
                              (unsigned long long)steps);
            }
        }
        pair_free(&p);
    }
}

/* 60. A '**' whose one static child is "a" skipped every end whose segment
 *    is not "a" (a compare each, regression 23's shortcut), also when the
 *    '**' has template children: GET /x/v1/apngb1c/users missed the route
 *    of a{p}b{q}c/users below the '**' (404, linear found it).  Cause: the
 *    shortcut's test listed the param, glob, '**' and catch-all children,
 *    not the templates (the two met when templates and the conformance
 *    gates were merged).  Now a '**' with template children tries every end. */
Test(glob, regression_60_a_globstar_with_one_static_child_still_tries_its_templates)
{
    pair p;
    pair_init(&p);
    cr_assert_eq(pair_add(&p, RB_CONNECT, "/**/a"), RB_OK);
    cr_assert_eq(pair_add(&p, RB_GET, "/**/a{p}b{q}c/users"), RB_OK);
    pair_build(&p);
    const char *path = "/x/v1/apngb1c/users";
    expect_found(&p, RB_GET, path, 1, 3, (rb_span[]){{1, 4}, {7, 3}, {11, 1}});
    expect_outcome(&p, RB_CONNECT, path, RB_METHOD_NOT_ALLOWED, 1u << RB_GET);
    expect_found(&p, RB_CONNECT, "/x/v1/a", 0, 1, (rb_span[]){{1, 4}});
    pair_free(&p);
}
