/*
 * test_differential.c — every router against `linear` on seeded random
 * route sets and paths (reproducible: the seed is in every failure message).
 *
 * Route sets mix static/param conflicts, catch-alls, trailing slashes,
 * empty segments, long segments, prefixes shared inside a segment
 * (/user, /users, /username), all methods and `*`; template-capable
 * routers also get template segments (img-{p}.png, {a}.{b}, {a}-x-{b},
 * u{p} beside the word "user") whose paths fill the params with bytes of
 * their own pieces ('.', "-x-"), so that several splits fit; glob-capable
 * routers also get in-segment globs and `**`.  Paths are instantiated from the
 * routes (so most hit something), then mutated (trailing '/', '//', a
 * segment replaced or dropped).  Every answer — outcome, route id, every
 * capture span, the 405 mask — must equal linear's.
 */
#include "rb_test.h"
#include "rng.h"
#include "verify.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#define ROUND_COUNT      150
#define ROUTES_PER_ROUND 40
#define PATHS_PER_ROUND  300

static const char *const words[] = {
    "",      "u",        "us",    "user",
    "users", "username", "me",    "a",
    "ab",    "abc",      "x-y",   "v1",
    "new",   "id",       "x.png", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
#define NWORDS (sizeof words / sizeof words[0])
static const char *const globs[] = {"*",   "*.png", "u*", "[a-c]*", "?",
                                    "a?c", "[!u]*", "**", "us*r*",  "*e"};
#define NGLOBS (sizeof globs / sizeof globs[0])
/* Templates: '%' stands for a param (named when the pattern is made). */
static const char *const templates[] = {"%.json", "img-%.png", "%.%",   "%-%",  "v%",
                                        "%-x-%",  "%.png",     "x.%",   "%e",   "u%",
                                        "us%r",   "%.%.%",     "a%b%c", "%..%", "user%"};
#define NTEMPLATES (sizeof templates / sizeof templates[0])
/* Values for a template's params: some hold its pieces' bytes. */
static const char *const values[] = {"1",  "a",   ".", "-x-", "a.b", "x-y", "v42", "-",
                                     "..", "png", "e", "x",   "ser", "b.c", "json"};
#define NVALUES (sizeof values / sizeof values[0])

typedef struct gen {
    rb_rng rng;
    bool use_globs;
    bool use_templates;
} gen;

static const char *pick(gen *g, const char *const *xs, size_t n)
{
    return xs[rb_rng_below(&g->rng, n)];
}

static void put(char *buf, size_t cap, size_t *n, const char *s)
{
    int w = snprintf(buf + *n, *n < cap ? cap - *n : 0, "%s", s);
    if (w > 0) *n += (size_t)w;
}

static void make_pattern(gen *g, char *buf, size_t cap)
{
    size_t n = 0;
    unsigned depth = 1 + (unsigned)rb_rng_below(&g->rng, 5);
    unsigned captures = 0;
    for (unsigned d = 0; d < depth; d++) {
        put(buf, cap, &n, "/");
        unsigned r = (unsigned)rb_rng_below(&g->rng, 100);
        char name[16];
        if (r < 55) {
            put(buf, cap, &n, pick(g, words, NWORDS));
        } else if (r < 80) {
            snprintf(name, sizeof name, rb_rng_below(&g->rng, 2) ? ":p%u" : "{p%u}", captures++);
            put(buf, cap, &n, name);
        } else if (g->use_templates && r < 90 && captures + 3 <= RB_MAX_CAPTURES) {
            for (const char *t = pick(g, templates, NTEMPLATES); *t; t++) {
                if (*t != '%') {
                    char c[2] = {*t, '\0'};
                    put(buf, cap, &n, c);
                    continue;
                }
                snprintf(name, sizeof name, "{p%u}", captures++);
                put(buf, cap, &n, name);
            }
        } else if (r < 88 || !g->use_globs) {
            snprintf(name, sizeof name, rb_rng_below(&g->rng, 2) ? "*c%u" : "{*c%u}", captures++);
            put(buf, cap, &n, name);
            return;
        } else {
            put(buf, cap, &n, pick(g, globs, NGLOBS));
        }
    }
}

static int random_method(gen *g, bool allow_any)
{
    unsigned r = (unsigned)rb_rng_below(&g->rng, 10);
    if (r < 4) return RB_GET;
    if (allow_any && r == 9) return RB_ANY;
    return (int)rb_rng_below(&g->rng, RB_METHOD_COUNT);
}

/* A path from a pattern: each segment replaced by something it (usually)
 * matches. */
static void make_path(gen *g, const char *pattern, char *buf, size_t cap)
{
    size_t n = 0;
    const char *p = pattern;
    while (*p == '/') {
        const char *s = p + 1;
        const char *e = strchr(s, '/');
        if (!e) e = s + strlen(s);
        char seg[64];
        snprintf(seg, sizeof seg, "%.*s", (int)(e - s), s);
        put(buf, cap, &n, "/");
        const char *open = strchr(seg, '{');
        bool whole = seg[0] == '{' && !strchr(seg + 1, '{') && seg[strlen(seg) - 1] == '}';
        if (open && !whole) { /* a template: its pieces, a value per param */
            for (const char *t = seg; *t; t++) {
                if (*t != '{') {
                    char c[2] = {*t, '\0'};
                    put(buf, cap, &n, c);
                    continue;
                }
                while (*t != '}') t++;
                put(buf, cap, &n, pick(g, values, NVALUES));
            }
        } else if (seg[0] == ':' || seg[0] == '{') {
            bool catchall = seg[1] == '*';
            put(buf, cap, &n, rb_rng_below(&g->rng, 2) ? pick(g, words, NWORDS) : "v42");
            if (catchall && rb_rng_below(&g->rng, 2)) put(buf, cap, &n, "/x/y");
        } else if (seg[0] == '*' && seg[1] != '*' && seg[1] != '.' && seg[1] != 'e' && seg[1]) {
            put(buf, cap, &n, "rest/of/it");
        } else if (strcmp(seg, "**") == 0) {
            unsigned k = (unsigned)rb_rng_below(&g->rng, 3);
            for (unsigned i = 0; i < k; i++) {
                put(buf, cap, &n, pick(g, words, NWORDS));
                if (i + 1 < k) put(buf, cap, &n, "/");
            }
            if (k == 0 && n > 0) n--; /* zero segments: drop the '/' */
        } else if (strpbrk(seg, "*?[")) {
            put(buf, cap, &n, pick(g, words, NWORDS));
        } else {
            put(buf, cap, &n, seg);
        }
        p = e;
    }
    if (n == 0) put(buf, cap, &n, "/");
    switch (rb_rng_below(&g->rng, 8)) {
    case 0:
        put(buf, cap, &n, "/");
        break;
    case 1:
        put(buf, cap, &n, "//");
        break;
    case 2: {
        char *last = strrchr(buf, '/');
        if (last && last != buf) *last = '\0';
        break;
    }
    case 3:
        put(buf, cap, &n, "/");
        put(buf, cap, &n, pick(g, words, NWORDS));
        break;
    default:
        break;
    }
}

static void run_round(const rb_router_ops *ops, uint64_t seed, bool use_globs, bool use_templates)
{
    gen g;
    rb_rng_seed(&g.rng, seed);
    g.use_globs = use_globs;
    g.use_templates = use_templates;
    char label[80];
    snprintf(label, sizeof label, "%s seed %llu", rb_ops_name(ops), (unsigned long long)seed);
    rbt_pair p;
    rbt_pair_init(&p, ops, NULL, label);
    char patterns[ROUTES_PER_ROUND][256];
    size_t npatterns = 0;
    for (uint32_t id = 0; id < ROUTES_PER_ROUND; id++) {
        char pat[256];
        make_pattern(&g, pat, sizeof pat);
        int method = random_method(&g, true);
        if (rbt_pair_add(&p, method, pat, strlen(pat), id) == RB_OK)
            memcpy(patterns[npatterns++], pat, sizeof pat);
    }
    rbt_pair_build(&p);
    for (unsigned i = 0; i < PATHS_PER_ROUND && npatterns; i++) {
        char path[512];
        const char *pat = patterns[rb_rng_below(&g.rng, npatterns)];
        make_path(&g, pat, path, sizeof path);
        rbt_pair_lookup(&p, random_method(&g, false), path, strlen(path));
    }
    rbt_pair_free(&p);
}

Test(differential, every_router_agrees_with_linear_on_random_tables, .timeout = 600)
{
    for (size_t i = 0; i < rb_registry_count(); i++) {
        const rb_router_ops *ops = rb_registry_at(i);
        if (strcmp(rb_ops_name(ops), "linear") == 0) continue;
        if (rb_ops_features(ops) & RB_FEAT_PEER) continue; /* peers: test_r3.c */
        bool with_globs = (rb_ops_features(ops) & RB_FEAT_GLOB) != 0;
        bool with_templates = (rb_ops_features(ops) & RB_FEAT_TEMPLATE) != 0;
        for (uint64_t seed = 1; seed <= ROUND_COUNT; seed++) {
            run_round(ops, seed, false, false);
            if (with_templates) run_round(ops, 2000 + seed, false, true);
            if (with_globs) run_round(ops, 1000 + seed, true, with_templates);
        }
    }
}
