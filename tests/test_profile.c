/*
 * test_profile.c — route table profiles (corpus/profile.h).
 *
 * Rules checked: fitting counts what profile.h says (a small table counted
 * by hand); version and extension words are recognised as documented; a
 * profile round-trips through JSON exactly (by hand and for every shipped
 * table); reading refuses unknown keys, bad counts and counts that
 * disagree, naming the key; the total variation distance is 0 for the
 * same histogram, 1 for disjoint ones and half the absolute differences
 * otherwise; the CLI writes, reads and compares profiles.
 */
#include <criterion/criterion.h>

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "rb_test.h"

static rb_profile fit(const char *text)
{
    rb_route_table t = rbt_parse_routes(text);
    rb_profile p;
    rb_error err;
    cr_assert_eq(rb_profile_fit(&t, &p, &err), RB_OK, "%s", err.message);
    rb_route_table_free(&t);
    return p;
}

static const char small[] = "GET /users\n"
                            "POST /users\n"
                            "GET /users/me\n"
                            "GET /users/:id\n"
                            "GET /users/:id/a.json\n"
                            "PUT /v2/\n"
                            "GET /files/*path\n"
                            "GET /users\n"; /* a duplicate: left out */

Test(profile, fit_counts_a_small_table_by_hand)
{
    rb_profile p = fit(small);
    cr_expect_eq(p.routes, 7);
    cr_expect_eq(p.paths, 6); /* users, users/me, users/:id, .../a.json, v2/, files/{*} */
    cr_expect_eq(p.max_depth, 3);
    cr_expect_eq(p.depth[1], 2); /* GET, POST /users */
    cr_expect_eq(p.depth[2], 4); /* me, :id, "v2" + "", *path */
    cr_expect_eq(p.depth[3], 1);
    cr_expect_eq(p.methods[RB_GET], 5);
    cr_expect_eq(p.methods[RB_POST], 1);
    cr_expect_eq(p.methods[RB_PUT], 1);
    cr_expect_eq(p.methods_per_path[1], 5);
    cr_expect_eq(p.methods_per_path[2], 1);
    /* the root: users, v2, files */
    cr_expect_eq(p.level[0].fanout[rb_profile_fanout_bucket(3)], 1);
    cr_expect_eq(rb_profile_fanout_bucket(3), 1);
    /* depth 1: three statics with children, /users also with routes */
    const rb_profile_level *l1 = &p.level[1];
    cr_expect_eq(l1->kind[RB_PK_STATIC].nodes, 3);
    cr_expect_eq(l1->kind[RB_PK_STATIC].interior, 3);
    cr_expect_eq(l1->kind[RB_PK_STATIC].terminal, 1);
    cr_expect_eq(l1->kind[RB_PK_STATIC].both, 1);
    cr_expect_eq(l1->fanout[0], 2); /* v2, files: one child */
    cr_expect_eq(l1->fanout[1], 1); /* users: me, :id */
    cr_expect_eq(l1->param_parents, 1);
    cr_expect_eq(l1->param_with_static, 1); /* me beside :id */
    cr_expect_eq(l1->versions, 1);
    /* depth 2: me and "" static, :id, *path */
    const rb_profile_level *l2 = &p.level[2];
    cr_expect_eq(l2->kind[RB_PK_STATIC].nodes, 2);
    cr_expect_eq(l2->kind[RB_PK_STATIC].terminal, 2);
    cr_expect_eq(l2->kind[RB_PK_STATIC].interior, 0);
    cr_expect_eq(l2->empties, 1);
    cr_expect_eq(l2->kind[RB_PK_PARAM].nodes, 1);
    cr_expect_eq(l2->kind[RB_PK_PARAM].both, 1);
    cr_expect_eq(l2->kind[RB_PK_CATCHALL].nodes, 1);
    cr_expect_eq(l2->kind[RB_PK_CATCHALL].terminal, 1);
    cr_expect_eq(l2->kind[RB_PK_TEMPLATE].nodes, 0);
    cr_expect_eq(l2->fanout[0], 1); /* :id: a.json */
    cr_expect_eq(p.level[3].extensions, 1);
    /* words users(5) v2(2) files(5) me(2) a.json(6); "" is a trailing slash */
    cr_expect_eq(p.word_length[2], 2);
    cr_expect_eq(p.word_length[5], 2);
    cr_expect_eq(p.word_length[6], 1);
    cr_expect_eq(p.trailing_slash, 1);
    cr_expect_eq(p.versioned, 1);
    cr_expect_eq(p.extension, 1);
    rb_error err;
    cr_expect_eq(rb_profile_validate(&p, &err), RB_OK, "%s", err.message);
}

Test(profile, versions_and_extensions)
{
    const char *versions[] = {"v1", "V2", "1", "1.1", "2010-04-01", "v1beta1"};
    const char *not_versions[] = {"v", "users", "version", "", "va1"};
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++)
        cr_expect(rb_profile_is_version(versions[i], strlen(versions[i])), "%s", versions[i]);
    for (size_t i = 0; i < sizeof not_versions / sizeof not_versions[0]; i++)
        cr_expect(!rb_profile_is_version(not_versions[i], strlen(not_versions[i])), "%s",
                  not_versions[i]);
    const char *ext[] = {"a.json", "robots.txt", "*.png", "?*.json", "x.mp4"};
    const char *not_ext[] = {"json", ".json", "1.1", "a.", "a.toolong", "a.j-s"};
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
        cr_expect(rb_profile_has_extension(ext[i], strlen(ext[i])), "%s", ext[i]);
    for (size_t i = 0; i < sizeof not_ext / sizeof not_ext[0]; i++)
        cr_expect(!rb_profile_has_extension(not_ext[i], strlen(not_ext[i])), "%s", not_ext[i]);
}

Test(profile, empty_table_is_an_error)
{
    rb_route_table t = rbt_parse_routes("# nothing\n");
    rb_profile p;
    rb_error err;
    cr_expect_eq(rb_profile_fit(&t, &p, &err), RB_EINVAL);
    rb_route_table_free(&t);
}

/* ---- JSON -------------------------------------------------------------------------- */

static char *to_json(const rb_profile *p)
{
    rb_buf b = {0};
    rb_error err;
    cr_assert_eq(rb_profile_json_write(p, &b, &err), RB_OK, "%s", err.message);
    return b.data;
}

static void expect_round_trip(const rb_profile *p, const char *what)
{
    char *text = to_json(p);
    rb_profile q;
    rb_error err;
    cr_assert_eq(rb_profile_json_parse(what, text, strlen(text), &q, &err), RB_OK, "%s: %s", what,
                 err.message);
    cr_expect(memcmp(p, &q, sizeof q) == 0, "%s: the profile read back differs", what);
    free(text);
}

Test(profile, json_round_trips)
{
    rb_profile p = fit(small);
    expect_round_trip(&p, "small");
    const char *names[] = {"github", "discord", "gplus", "parse", "static", "semantics"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[1024];
        rbt_data_path(names[i], "routes", path, sizeof path);
        rb_profile q;
        bool json = true;
        rb_error err;
        cr_assert_eq(rb_profile_load(path, &q, &json, &err), RB_OK, "%s", err.message);
        cr_expect(!json);
        expect_round_trip(&q, names[i]);
    }
}

Test(profile, json_has_no_word_of_the_table)
{
    char path[1024];
    rbt_data_path("github", "routes", path, sizeof path);
    rb_route_table t;
    rb_error err;
    cr_assert_eq(rb_route_table_read(path, &t, &err), RB_OK, "%s", err.message);
    rb_profile p;
    cr_assert_eq(rb_profile_fit(&t, &p, &err), RB_OK, "%s", err.message);
    char *text = to_json(&p);
    /* every static segment of 3+ bytes (GitHub's words: "repos", "issues", ...) */
    size_t checked = 0;
    for (size_t i = 0; i < t.count; i++) {
        const char *s = rb_route_pattern(&t, i), *end = s + t.routes[i].len;
        while (s < end) {
            const char *e = memchr(s + 1, '/', (size_t)(end - s - 1));
            if (!e) e = end;
            size_t n = (size_t)(e - s - 1);
            char w[64];
            if (n >= 3 && n < sizeof w && s[1] != ':' && s[1] != '*') {
                snprintf(w, sizeof w, "\"%.*s", (int)n, s + 1);
                cr_expect(strstr(text, w + 1) == NULL, "the profile holds the word %s", w + 1);
                checked++;
            }
            s = e;
        }
    }
    cr_expect_gt(checked, 300);
    free(text);
    rb_route_table_free(&t);
}

/* Replace the first `from` in text with `to` (the result is malloc'ed). */
static char *edit(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    cr_assert_not_null(at, "'%s' not in the profile", from);
    size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

Test(profile, json_reading_names_what_is_wrong)
{
    rb_profile p = fit(small);
    char *good = to_json(&p);
    static const struct {
        const char *from, *to, *message;
    } cases[] = {
        {"\"routes\":\t7", "\"routes\":\t7,\n\"colour\": 1", "\"colour\": unknown key"},
        {"\"routes\":\t7", "\"routes\":\t-7", "routes: must be a non-negative integer"},
        {"\"routes\":\t7", "\"routes\":\t7.5", "routes: must be a non-negative integer"},
        {"\"routes\":\t7", "\"routes\":\t8", "depth: 7 routes by depth, routes is 8"},
        {"routebench-profile", "something-else", "schema: must be"},
        {"\"schema_version\":\t1", "\"schema_version\":\t2", "schema_version: 2"},
        {"\"GET\":\t5", "\"FETCH\":\t5", "methods.FETCH: unknown method"},
        {"\"param_with_static\":\t1", "\"param_with_static\":\t2", "levels[1]: param_parents 1"},
        {"\"catchall\":", "\"wildcard\":", "levels[2].kinds.wildcard: unknown kind"},
        {"\"fingerprint\":\t\"xxh3:", "\"fingerprint\":\t\"md5:", "fingerprint: must be"},
        {"\"depth\":\t[2, 4, 1]", "\"depth\":\t[2, 4, 1", "not valid JSON"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *bad = edit(good, cases[i].from, cases[i].to);
        rb_profile q;
        rb_error err;
        cr_expect_eq(rb_profile_json_parse("api.json", bad, strlen(bad), &q, &err), RB_EFORMAT,
                     "case %zu accepted", i);
        cr_expect(strstr(err.message, "api.json: ") == err.message, "%s", err.message);
        cr_expect(strstr(err.message, cases[i].message) != NULL, "case %zu: '%s', wanted '%s'", i,
                  err.message, cases[i].message);
        free(bad);
    }
    free(good);
    rb_profile q;
    rb_error err;
    cr_expect_eq(rb_profile_json_parse("api.json", "[1, 2]", 6, &q, &err), RB_EFORMAT);
    cr_expect(strstr(err.message, "not a JSON object") != NULL, "%s", err.message);
}

/* ---- distances ----------------------------------------------------------------------- */

Test(profile, total_variation)
{
    rb_profile a = fit("GET /a\nGET /b\n"), b = fit("GET /a/b\nGET /c\n");
    rb_profile_hist ha, hb;
    rb_profile_histogram(&a, RB_PH_DEPTH, &ha);
    rb_profile_histogram(&b, RB_PH_DEPTH, &hb);
    /* depth shares (1, 0) and (1/2, 1/2): half of 1/2 + 1/2 */
    cr_expect(fabs(rb_profile_tv(&ha, &hb) - 0.5) < 1e-12);
    cr_expect_eq(rb_profile_tv(&ha, &ha), 0.0);
    rb_profile c = fit("GET /a/b/c\n");
    rb_profile_histogram(&c, RB_PH_DEPTH, &hb);
    cr_expect_eq(rb_profile_tv(&ha, &hb), 1.0);
    rb_profile_distance d;
    rb_profile_compare(&a, &a, &d);
    for (int i = 0; i < RB_PH_COUNT; i++) cr_expect_eq(d.hist[i], 0.0, "histogram %d", i);
    cr_expect_eq(d.mean, 0.0);
    rb_profile_compare(&a, &c, &d);
    cr_expect_eq(d.hist[RB_PH_DEPTH], 1.0);
    /* methods are all GET in both */
    cr_expect_eq(d.hist[RB_PH_METHODS], 0.0);
}

/* ---- CLI ------------------------------------------------------------------------------ */

Test(profile, cli_profile_and_compare)
{
    char gh[1024], cmd[4096];
    rbt_data_path("github", "routes", gh, sizeof gh);
    const char *dir = "/tmp/rb_profile_test.json";
    snprintf(cmd, sizeof cmd, "'%s/routebench' corpus profile '%s' --out %s >/dev/null",
             RB_BINARY_DIR, gh, dir);
    cr_assert_eq(rbt_run(cmd), 0, "%s", cmd);
    /* the routes file and its profile compare as identical */
    snprintf(cmd, sizeof cmd,
             "'%s/routebench' corpus compare '%s' %s --json > /tmp/rb_profile_cmp.json",
             RB_BINARY_DIR, gh, dir);
    cr_assert_eq(rbt_run(cmd), 0, "%s", cmd);
    FILE *f = fopen("/tmp/rb_profile_cmp.json", "r");
    cr_assert_not_null(f);
    char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    cJSON *o = cJSON_Parse(buf);
    cr_assert_not_null(o, "compare --json is not JSON");
    const cJSON *mean = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "distance"), "mean");
    cr_expect(cJSON_IsNumber(mean) && mean->valuedouble == 0.0);
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(o, "histograms")), RB_PH_COUNT);
    cJSON_Delete(o);
    const char *bad[] = {
        "corpus compare /nonexistent.routes /nonexistent.json",
        "corpus compare onlyone.routes",
        "corpus profile",
        "corpus profile x.routes --bogus",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(cmd, sizeof cmd, "'%s/routebench' %s 2>/dev/null", RB_BINARY_DIR, bad[i]);
        cr_expect_eq(rbt_run(cmd), 2, "%s", bad[i]);
    }
    snprintf(cmd, sizeof cmd, "'%s/routebench' corpus check '%s' --against %s >/dev/null",
             RB_BINARY_DIR, gh, dir);
    cr_expect_eq(rbt_run(cmd), 0, "%s", cmd);
    remove(dir);
    remove("/tmp/rb_profile_cmp.json");
}

/* Rule: extension names, param syntax and template forms are counted by
 * the last segment and by segment, as by hand below; a profile written
 * before them (no such keys) reads as none of them. */
Test(profile, extension_names_param_syntax_and_template_forms)
{
    rb_profile p = fit("GET /a.json\n"           /* json */
                       "GET /b/{id}.json\n"      /* json, template form ext */
                       "GET /b/{id}\n"           /* brace param */
                       "GET /c/:x/d.png\n"       /* png; colon param */
                       "GET /c/:x/us_{y}\n"      /* template form affix */
                       "GET /c/:x/{y}-{z}.csv\n" /* csv, template form multi */
                       "GET /f/main.go\n"        /* other */
                       "GET /g/*path\n");        /* no extension */
    cr_expect_eq(p.ext_names[rb_profile_ext_index("json", 4)], 2);
    cr_expect_eq(p.ext_names[rb_profile_ext_index("png", 3)], 1);
    cr_expect_eq(p.ext_names[rb_profile_ext_index("csv", 3)], 1);
    cr_expect_eq(p.ext_names[RB_PROFILE_EXT_NAMES - 1], 1, "main.go: other");
    cr_expect_str_eq(rb_profile_ext_name(RB_PROFILE_EXT_NAMES - 1), "other");
    /* :x on three routes, {id} on one */
    cr_expect_eq(p.param_syntax[RB_PSYN_COLON], 3);
    cr_expect_eq(p.param_syntax[RB_PSYN_BRACE], 1);
    cr_expect_eq(p.template_forms[RB_TFORM_EXT], 1);
    cr_expect_eq(p.template_forms[RB_TFORM_AFFIX], 1);
    cr_expect_eq(p.template_forms[RB_TFORM_MULTI], 1);
    rb_profile_hist h;
    rb_profile_histogram(&p, RB_PH_EXT_NAMES, &h);
    cr_expect_str_eq(h.label[0], "none");
    cr_expect_eq(h.count[0], 3, "/b/{id}, /c/:x/us_{y}, /g/*path");
    /* without the newer keys: read as none */
    char *good = to_json(&p);
    char *old = edit(good, "\"extension_names\":", "\"extension_names_\":");
    rb_profile q;
    rb_error err;
    cr_expect_eq(rb_profile_json_parse("api.json", old, strlen(old), &q, &err), RB_EFORMAT);
    free(old);
    free(good);
    memset(p.ext_names, 0, sizeof p.ext_names);
    memset(p.param_syntax, 0, sizeof p.param_syntax);
    memset(p.template_forms, 0, sizeof p.template_forms);
    good = to_json(&p); /* empty objects are written: drop them as an old writer would */
    char *a = edit(good, "\"extension_names\":\t{\n\t},", "");
    char *b = edit(a, "\"param_syntax\":\t{\n\t},", "");
    char *c = edit(b, "\"template_forms\":\t{\n\t},", "");
    cr_expect(strstr(c, "template_forms") == NULL, "%s", c);
    cr_expect_eq(rb_profile_json_parse("api.json", c, strlen(c), &q, &err), RB_OK, "%s",
                 err.message);
    cr_expect(memcmp(&p, &q, sizeof q) == 0);
    free(a);
    free(b);
    free(c);
    free(good);
}
