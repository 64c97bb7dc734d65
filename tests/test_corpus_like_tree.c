/*
 * test_corpus_like_tree.c — `corpus gen --like` from a routes table
 * (v3, corpus/like_tree.c), the default for a routes file.
 *
 * Rules checked, each on the shipped real tables and on small tables
 * written here in the shape of public documents (Box's /2.0, Slack's
 * /api with dotted method names): the shared prefix keeps its words and
 * its share of routes at 1x, 10x and 100x (a single base path stays
 * single); params per route within 10% and the adjacent-param share
 * within 0.01 of the source's at every size; no file extension that the
 * source does not have (a dotted method name is a word); exactly N
 * routes, every (method, shape) distinct, nothing shadowed; the same
 * bytes for the same seed; no word of the source's below the prefix.  The
 * profile counts a dotted method name as a word.  And the OpenAPI hint
 * for a YAML or JSON document whose first key is not openapi.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "like.h"
#include "openapi.h"
#include "profile.h"
#include "rb_test.h"
#include "shape_tree.h"

/* A table in the shape of Box's document: every route below /2.0, params
 * alone or beside static words, two in a row once. */
static const char box_like[] = "GET /2.0/files/{file_id}\n"
                               "PUT /2.0/files/{file_id}\n"
                               "DELETE /2.0/files/{file_id}\n"
                               "GET /2.0/files/{file_id}/versions\n"
                               "GET /2.0/files/{file_id}/versions/{file_version_id}\n"
                               "POST /2.0/files/content\n"
                               "GET /2.0/folders/{folder_id}\n"
                               "GET /2.0/folders/{folder_id}/items\n"
                               "POST /2.0/folders\n"
                               "GET /2.0/users\n"
                               "GET /2.0/users/me\n"
                               "GET /2.0/users/{user_id}\n"
                               "GET /2.0/users/{user_id}/memberships\n"
                               "GET /2.0/metadata_templates/{scope}/{template_key}/schema\n"
                               "GET /2.0/collections\n"
                               "GET /2.0/collections/{collection_id}/items\n";

/* ... and of Slack's: methods with dots below /api. */
static const char slack_like[] = "POST /api/chat.postMessage\n"
                                 "POST /api/chat.update\n"
                                 "POST /api/chat.delete\n"
                                 "GET /api/users.info\n"
                                 "GET /api/users.list\n"
                                 "GET /api/bots.info\n"
                                 "POST /api/api.test\n"
                                 "POST /api/admin.apps.approve\n"
                                 "GET /api/admin.apps.requests.list\n"
                                 "GET /api/emoji.list\n";

typedef struct figures {
    double share;      /* routes strictly below the prefix */
    double params;     /* param segments a route */
    double adjacent;   /* routes with two param segments in a row */
    size_t firsts;     /* distinct first segments */
    size_t extensions; /* routes whose last segment ends in a file extension */
} figures;

static bool is_param(const char *s, size_t n)
{
    return n > 0 && (s[0] == ':' || (s[0] == '{' && s[n - 1] == '}' && !memchr(s + 1, '{', n - 1)));
}

/* The figures of t, counted here from its text (not by the profile). */
static figures figures_of(const rb_route_table *t, const char *prefix)
{
    figures f = {0};
    size_t plen = strlen(prefix), under = 0, params = 0, adjacent = 0;
    char firsts[4096][40];
    for (size_t r = 0; r < t->count; r++) {
        const char *p = rb_route_pattern(t, r);
        size_t len = t->routes[r].len;
        if (plen && len > plen + 1 && memcmp(p, prefix, plen) == 0 && p[plen] == '/') under++;
        bool prev = false, adj = false;
        size_t i = 0, seg = 0;
        const char *last = p;
        size_t last_n = 0;
        while (i < len) {
            size_t s = i + 1, e = s;
            while (e < len && p[e] != '/') e++;
            bool param = is_param(p + s, e - s);
            params += param;
            adj = adj || (param && prev);
            prev = param;
            if (seg == 0 && f.firsts < 4096) {
                size_t k = 0, n = e - s < 39 ? e - s : 39;
                while (k < f.firsts &&
                       !(strlen(firsts[k]) == n && memcmp(firsts[k], p + s, n) == 0))
                    k++;
                if (k == f.firsts) {
                    memcpy(firsts[f.firsts], p + s, n);
                    firsts[f.firsts++][n] = '\0';
                }
            }
            last = p + s;
            last_n = e - s;
            seg++;
            i = e;
        }
        adjacent += adj;
        f.extensions += rb_profile_has_extension(last, last_n);
    }
    f.share = (double)under / (double)t->count;
    f.params = (double)params / (double)t->count;
    f.adjacent = (double)adjacent / (double)t->count;
    return f;
}

/* The table generated like src, as `corpus gen --like FILE` makes it by
 * default. */
static rb_route_table like_default(const rb_route_table *src, size_t n, uint64_t seed)
{
    rb_like_config c = {n, seed, RB_LIKE_V3, RB_LIKE_SYNTAX_SOURCE};
    rb_route_table t;
    rb_error err;
    cr_assert_eq(rb_corpus_generate_like_table(src, &c, &t, NULL, &err), RB_OK, "%zu: %s", n,
                 err.message);
    cr_assert_eq(t.count, n);
    return t;
}

static rb_route_table shipped(const char *name)
{
    char path[1024];
    rbt_data_path(name, "routes", path, sizeof path);
    rb_route_table t;
    rb_error err;
    cr_assert_eq(rb_route_table_read(path, &t, &err), RB_OK, "%s", err.message);
    return t;
}

typedef struct source {
    const char *name, *prefix;
    rb_route_table t;
} source;

static size_t sources(source *s)
{
    static const char *const names[] = {"github", "discord", "twilio", "static", "parse", "gplus"};
    static const char *const prefixes[] = {"", "", "/2010-04-01", "", "/1", ""};
    size_t n = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++, n++)
        s[n] = (source){names[i], prefixes[i], shipped(names[i])};
    s[n++] = (source){"box-like", "/2.0", rbt_parse_routes(box_like)};
    s[n++] = (source){"slack-like", "/api", rbt_parse_routes(slack_like)};
    return n;
}

/* Rule: the shared prefix keeps its words and its share of routes (within
 * 0.02) at 1x, 10x and 100x; a single first segment stays single.  (v2
 * renamed /2.0 and /2010-04-01 to /v1 and lost the share.) */
Test(corpus_like_tree, shared_prefix_keeps_its_words_and_share, .timeout = 120)
{
    source s[16];
    size_t ns = sources(s);
    for (size_t i = 0; i < ns; i++) {
        figures src = figures_of(&s[i].t, s[i].prefix);
        for (size_t k = 1; k <= 100; k *= 10) {
            rb_route_table t = like_default(&s[i].t, s[i].t.count * k, 2);
            figures f = figures_of(&t, s[i].prefix);
            cr_expect(f.share >= src.share - 0.02 && f.share <= src.share + 0.02,
                      "%s at %zux: %.3f of routes below '%s', the source %.3f", s[i].name, k,
                      f.share, s[i].prefix, src.share);
            if (src.firsts == 1)
                cr_expect_eq(f.firsts, 1, "%s at %zux: %zu first segments", s[i].name, k, f.firsts);
            rb_route_table_free(&t);
        }
        rb_route_table_free(&s[i].t);
    }
}

/* Rule: params per route within 10% and routes with two params in a row
 * within 0.01 of the source's, at every size.  (v2: GitHub 1.67 params a
 * route became 0.57 at 1x; Twilio's 0% adjacent became 2%, PagerDuty's
 * 1.3% became 14.6%.) */
Test(corpus_like_tree, params_and_adjacent_params_keep_their_proportions, .timeout = 120)
{
    source s[16];
    size_t ns = sources(s);
    for (size_t i = 0; i < ns; i++) {
        figures src = figures_of(&s[i].t, s[i].prefix);
        for (size_t k = 1; k <= 100; k *= 10) {
            /* whole multiples, and from 10x between them (a part copy
             * of a few routes beside one copy is not in proportion) */
            for (size_t extra = 0; extra <= (k >= 10 ? 7u : 0u); extra += 7) {
                size_t n = s[i].t.count * k + extra;
                rb_route_table t = like_default(&s[i].t, n, 1);
                figures f = figures_of(&t, s[i].prefix);
                cr_expect(f.params >= src.params * 0.9 - 1e-9 &&
                              f.params <= src.params * 1.1 + 1e-9,
                          "%s at %zu routes: %.3f params a route, the source %.3f", s[i].name, n,
                          f.params, src.params);
                cr_expect(f.adjacent >= src.adjacent - 0.01 && f.adjacent <= src.adjacent + 0.01,
                          "%s at %zu routes: %.3f adjacent, the source %.3f", s[i].name, n,
                          f.adjacent, src.adjacent);
                rb_route_table_free(&t);
            }
        }
        rb_route_table_free(&s[i].t);
    }
}

/* Rule: no file extension that the source does not have: a dotted method
 * name (chat.postMessage, users.info) is a word, to the profile and to
 * the generator.  (v2 ended 37% of a Slack-like table in .py, .sh, ...) */
Test(corpus_like_tree, a_dotted_method_name_is_a_word)
{
    rb_route_table src = rbt_parse_routes(slack_like);
    rb_profile p;
    rb_error err;
    cr_assert_eq(rb_profile_fit(&src, &p, &err), RB_OK, "%s", err.message);
    cr_expect_eq(p.extension, 0, "users.info is not a file");
    cr_expect(!rb_profile_has_extension("users.info", 10));
    cr_expect(!rb_profile_has_extension("api.test", 8));
    cr_expect(rb_profile_has_extension("Calls.json", 10));
    cr_expect(rb_profile_has_extension("install.sh", 10));
    cr_expect(rb_profile_has_extension("README.HTML", 11));
    for (size_t k = 1; k <= 100; k *= 10) {
        rb_route_table t = like_default(&src, src.count * k, 3);
        figures f = figures_of(&t, "/api");
        cr_expect_eq(f.extensions, 0, "at %zux: %zu routes end in an extension", k, f.extensions);
        rb_route_table_free(&t);
    }
    /* Twilio's .json endings are kept, every one */
    rb_route_table tw = shipped("twilio");
    rb_route_table t = like_default(&tw, tw.count * 10, 3);
    cr_expect_eq(figures_of(&t, "").extensions, t.count, "all of Twilio's routes end in .json");
    rb_route_table_free(&t);
    rb_route_table_free(&tw);
    rb_route_table_free(&src);
}

/* Rule: exactly N routes (fewer than the source too), every (method,
 * shape) distinct and nothing shadowed, by `corpus check`; the same seed
 * gives the same bytes, another seed other words. */
Test(corpus_like_tree, tables_are_clean_and_deterministic, .timeout = 120)
{
    source s[16];
    size_t ns = sources(s);
    for (size_t i = 0; i < ns; i++) {
        size_t sizes[] = {1, s[i].t.count / 2 + 1, s[i].t.count, s[i].t.count * 10 + 3};
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            rb_route_table t = like_default(&s[i].t, sizes[z], 5);
            rb_check_report rep;
            rb_error err;
            cr_assert_eq(rb_corpus_check(&t, NULL, &rep, &err), RB_OK, "%s", err.message);
            cr_expect_eq(rep.exact_duplicates + rep.shape_duplicates, 0, "%s at %zu", s[i].name,
                         sizes[z]);
            cr_expect_eq(rep.shadowed, 0, "%s at %zu: %zu shadowed", s[i].name, sizes[z],
                         rep.shadowed);
            rb_route_table again = like_default(&s[i].t, sizes[z], 5);
            cr_expect_eq(rb_route_table_fingerprint(&t), rb_route_table_fingerprint(&again));
            rb_route_table other = like_default(&s[i].t, sizes[z], 6);
            if (sizes[z] > 3)
                cr_expect_neq(rb_route_table_fingerprint(&t), rb_route_table_fingerprint(&other),
                              "%s at %zu", s[i].name, sizes[z]);
            rb_route_table_free(&t);
            rb_route_table_free(&again);
            rb_route_table_free(&other);
        }
        rb_route_table_free(&s[i].t);
    }
}

/* Regression: 300,000 routes like the shipped static table (157 file
 * names, ie.css and pi.go among them) failed with "a word has no distinct
 * renaming": a 2-letter stem has 676 renamings, and the letters that
 * lengthen a word went after its extension (ie.cssb: no longer a file
 * name), so they never helped.  They now go before it once those are used
 * up; each renamed word keeps its extension, and the table is clean. */
Test(corpus_like_tree, regression_204_file_names_grow_before_their_extension, .timeout = 120)
{
    rb_route_table src = shipped("static");
    rb_route_table t = like_default(&src, 300000, 1);
    rb_check_report rep;
    rb_error err;
    cr_assert_eq(rb_corpus_check(&t, NULL, &rep, &err), RB_OK, "%s", err.message);
    cr_expect_eq(rep.exact_duplicates + rep.shape_duplicates + rep.shadowed, 0);
    size_t css = 0;
    for (size_t i = 0; i < t.count; i++) {
        const char *p = rb_route_pattern(&t, i);
        size_t n = t.routes[i].len;
        css += n > 4 && strcmp(p + n - 4, ".css") == 0;
    }
    cr_expect_gt(css, 676u, "%zu routes end in .css", css);
    rb_route_table_free(&t);
    rb_route_table_free(&src);
}

/* Rule: words are synthetic below the prefix: no static word of the
 * source's (versions and file extensions aside) is in the table. */
Test(corpus_like_tree, no_word_of_the_source_below_the_prefix)
{
    rb_route_table src = rbt_parse_routes(box_like);
    rb_route_table t = like_default(&src, 200, 1);
    static const char *const words[] = {"/files", "/folders", "/users",   "/versions",   "/items",
                                        "/me",    "/schema",  "/content", "/memberships"};
    for (size_t r = 0; r < t.count; r++)
        for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
            const char *p = rb_route_pattern(&t, r), *at = strstr(p, words[w]);
            size_t n = strlen(words[w]);
            cr_expect(!(at && (at[n] == '/' || at[n] == ' ' || at[n] == '\0' ||
                               at + n == p + t.routes[r].len)),
                      "%.*s holds %s", (int)t.routes[r].len, p, words[w]);
        }
    rb_route_table_free(&t);
    rb_route_table_free(&src);
}

/* Rule: an OpenAPI or Swagger document is named as one wherever a routes
 * table is expected, whatever its first key (Twilio's YAML opens with
 * components: and says openapi: after 3 MB), JSON too; a key "openapi"
 * nested below the top level is not one. */
Test(corpus_like_tree, the_openapi_hint_whatever_the_first_key)
{
    size_t big = 100000;
    char *yaml = malloc(big + 200), *json = malloc(big + 200);
    cr_assert(yaml && json);
    size_t w = (size_t)sprintf(yaml, "components:\n  schemas:\n    x:\n      description: \"");
    memset(yaml + w, 'y', big);
    w += big;
    sprintf(yaml + w, "\"\nopenapi: 3.0.1\npaths: {}\n");
    w = (size_t)sprintf(json, "{\"components\": {\"openapi\": \"");
    memset(json + w, 'j', big);
    w += big;
    sprintf(json + w, "\"}, \"swagger\": \"2.0\", \"paths\": {}}");
    cr_expect_eq(rb_openapi_sniff(yaml, strlen(yaml)), 3);
    cr_expect_eq(rb_openapi_sniff(json, strlen(json)), 2, "the top-level key, not the nested one");
    const char *nested = "{\"info\": {\"openapi\": \"3.0.0\"}, \"paths\": {}}";
    cr_expect_eq(rb_openapi_sniff(nested, strlen(nested)), 0);
    rb_route_table t;
    rb_error err;
    cr_expect_eq(rb_route_table_parse("api.yaml", yaml, strlen(yaml), &t, &err), RB_EFORMAT);
    cr_expect(strstr(err.message, "looks like an OpenAPI document") != NULL, "%s", err.message);
    free(yaml);
    free(json);
}

/* The compare report of source s against t, as text. */
static char *compare_text(const rb_route_table *s, const rb_route_table *t)
{
    rb_profile a, b;
    rb_error err;
    cr_assert_eq(rb_profile_fit(s, &a, &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_profile_fit(t, &b, &err), RB_OK, "%s", err.message);
    rb_buf o = {0};
    cr_assert_eq(rb_profile_compare_text(&a, "A", &b, "B", &o, &err), RB_OK, "%s", err.message);
    return o.data;
}

/* Rule: `corpus compare` shows the shared prefix, params per route,
 * adjacent params, first segments and extensions with a one-line
 * verdict: within tolerance for the v3 table, the figures that are not
 * for a table that renames the base path and widens it. */
Test(corpus_like_tree, compare_shows_what_a_person_sees)
{
    rb_route_table src = rbt_parse_routes(box_like);
    rb_route_table t = like_default(&src, src.count * 10, 1);
    char *text = compare_text(&src, &t);
    cr_expect(strstr(text, "shared prefix") && strstr(text, "/2.0 100.0%") &&
                  strstr(text, "params per route") && strstr(text, "adjacent params") &&
                  strstr(text, "first segments") && strstr(text, "extensions"),
              "%s", text);
    cr_expect(strstr(text, "\nlike: within tolerance on every figure\n") != NULL, "%s", text);
    free(text);
    rb_route_table_free(&t);
    rb_route_table other = rbt_parse_routes("GET /v1/a/{x}/{y}\nGET /b\nGET /c/{x}\n");
    text = compare_text(&src, &other);
    cr_expect(strstr(text, "\nlike: not within tolerance on shared prefix, params per route, "
                           "adjacent params, first segments\n") != NULL,
              "%s", text);
    free(text);
    rb_route_table_free(&other);
    rb_route_table_free(&src);
}

/* Rule: the profile keeps the shared prefix, params and adjacent params,
 * and reads them back from its JSON; a profile written before them reads
 * as none. */
Test(corpus_like_tree, the_profile_keeps_the_prefix_and_params)
{
    rb_route_table src = rbt_parse_routes(box_like);
    rb_profile p, q;
    rb_error err;
    cr_assert_eq(rb_profile_fit(&src, &p, &err), RB_OK, "%s", err.message);
    cr_expect_str_eq(p.prefix, "/2.0");
    cr_expect_eq(p.prefix_routes, 16);
    cr_expect_eq(p.params, 13, "counted by hand: 13 param segments in 16 routes");
    cr_expect_eq(p.adjacent_params, 1, "{scope}/{template_key} only");
    rb_buf o = {0};
    cr_assert_eq(rb_profile_json_write(&p, &o, &err), RB_OK);
    cr_assert_eq(rb_profile_json_parse("p.json", o.data, o.len, &q, &err), RB_OK, "%s",
                 err.message);
    cr_expect_str_eq(q.prefix, "/2.0");
    cr_expect_eq(q.prefix_routes, 16);
    cr_expect_eq(q.params, 13);
    cr_expect_eq(q.adjacent_params, 1);
    rb_buf_free(&o);
    rb_route_table_free(&src);
}

/* Rule: a version that is a resource (/v1 beside /v2, neither holding 90%
 * of the routes) stays a version: kept in the first copy, a fresh version
 * in the others, so every route keeps a version segment. */
Test(corpus_like_tree, versions_beside_versions_stay_versions)
{
    rb_route_table src = rbt_parse_routes("GET /v1/users/{id}\nGET /v1/orgs\n"
                                          "GET /v2/users/{id}\nGET /v2/teams/{id}/members\n");
    rb_route_table t = like_default(&src, 40, 1);
    for (size_t r = 0; r < t.count; r++) {
        const char *p = rb_route_pattern(&t, r), *slash = memchr(p + 1, '/', t.routes[r].len - 1);
        cr_assert_not_null(slash);
        cr_expect(rb_profile_is_version(p + 1, (size_t)(slash - p - 1)) && p[1] == 'v', "%.*s",
                  (int)t.routes[r].len, p);
        if (r < 4) cr_expect(p[2] == '1' || p[2] == '2', "copy 0 keeps /v1 and /v2: %s", p);
    }
    rb_route_table_free(&t);
    rb_route_table_free(&src);
}

/* Rule: a profile's shared prefix is checked on reading: a path that does
 * not start with '/', or more routes below it than the profile holds, is
 * refused naming the key. */
Test(corpus_like_tree, a_bad_shared_prefix_is_refused)
{
    rb_route_table src = rbt_parse_routes(box_like);
    rb_profile p, q;
    rb_error err;
    cr_assert_eq(rb_profile_fit(&src, &p, &err), RB_OK, "%s", err.message);
    static const struct {
        const char *from, *to, *key;
    } bad[] = {
        {"\"path\":\t\"/2.0\"", "\"path\":\t\"2.0\"", "shared_prefix.path"},
        {"\"routes\":\t16\n\t}", "\"routes\":\t17\n\t}", "shared_prefix.routes"},
        {"\"path\":\t\"/2.0\"", "\"path\":\t\"/2.0\", \"x\": 1", "shared_prefix.\"x\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rb_buf o = {0};
        cr_assert_eq(rb_profile_json_write(&p, &o, &err), RB_OK);
        char *at = strstr(o.data, bad[i].from);
        cr_assert_not_null(at, "%s in %s", bad[i].from, o.data);
        char text[16384];
        snprintf(text, sizeof text, "%.*s%s%s", (int)(at - o.data), o.data, bad[i].to,
                 at + strlen(bad[i].from));
        cr_expect_neq(rb_profile_json_parse("p.json", text, strlen(text), &q, &err), RB_OK, "%zu",
                      i);
        cr_expect(strstr(err.message, bad[i].key) != NULL, "%zu: %s", i, err.message);
        rb_buf_free(&o);
    }
    rb_route_table_free(&src);
}

/* Rule: v3 needs a routes table: asked of a profile, or with
 * --param-syntax (v3 keeps the source's), it is a usage error. */
Test(corpus_like_tree, cli_v3_needs_a_table)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "'%s/routebench' corpus gen --like '%s/corpus/data/pagerduty.profile.json' "
             "--generator v3 --routes 10 --seed 1 --out /tmp/rb_v3_never 2>/dev/null",
             RB_BINARY_DIR, RB_SOURCE_DIR);
    cr_expect_eq(rbt_run(cmd), 2, "%s", cmd);
    snprintf(cmd, sizeof cmd,
             "'%s/routebench' corpus gen --like '%s/corpus/data/github.routes' --param-syntax "
             "brace --routes 10 --seed 1 --out /tmp/rb_v3_never 2>/dev/null",
             RB_BINARY_DIR, RB_SOURCE_DIR);
    cr_expect_eq(rbt_run(cmd), 2, "%s", cmd);
    snprintf(cmd, sizeof cmd,
             "'%s/routebench' corpus gen --shape mixed --generator v3 --routes 10 --seed 1 --out "
             "/tmp/rb_v3_never 2>/dev/null",
             RB_BINARY_DIR);
    cr_expect_eq(rbt_run(cmd), 2, "%s", cmd);
}

/* Rule: a table with nothing to copy (every route on its first levels) is
 * refused past its own size, naming the most routes it can make. */
Test(corpus_like_tree, nothing_to_copy_is_refused_naming_the_most)
{
    rb_route_table src = rbt_parse_routes("GET /\nGET /{*path}\n");
    rb_like_config c = {5, 1, RB_LIKE_V3, RB_LIKE_SYNTAX_SOURCE};
    rb_route_table t;
    rb_error err;
    cr_expect_eq(rb_corpus_generate_like_table(&src, &c, &t, NULL, &err), RB_ELIMIT);
    cr_expect(strstr(err.message, "at most 2 routes") != NULL, "%s", err.message);
    cr_expect_eq(t.count, 0);
    c.routes = 2;
    cr_expect_eq(rb_corpus_generate_like_table(&src, &c, &t, NULL, &err), RB_OK, "%s", err.message);
    cr_expect_eq(t.count, 2);
    rb_route_table_free(&t);
    rb_route_table_free(&src);
}
