/*
 * test_openapi.c — OpenAPI 3.0/3.1 import, YAML and JSON (corpus/openapi.h).
 *
 * Rules checked: Discord's and Twilio's published documents give exactly
 * corpus/data/discord.routes and twilio.routes (which were made from
 * them), route for route;
 * operations come in document order; templates inside a segment stay
 * templates (touching params become globs), odd names are rewritten, 3.2 operations are skipped and counted,
 * local $refs are followed; every malformed or unsupported document is an
 * error that names what and where (line and column for YAML and JSON);
 * YAML gives the routes of the same JSON; truncated and binary input get
 * clear messages without raw bytes.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "file.h"
#include "openapi.h"

static void expect_routes(const rb_route_table *t, const char *const *want, size_t n)
{
    cr_assert_eq(t->count, n, "%zu routes, want %zu", t->count, n);
    for (size_t i = 0; i < n; i++) {
        char got[512];
        snprintf(got, sizeof got, "%s %.*s", rb_method_name(t->routes[i].method),
                 (int)t->routes[i].len, rb_route_pattern(t, i));
        cr_expect_str_eq(got, want[i], "route %zu", i);
    }
}

static int import(const char *json, rb_route_table *t, rb_openapi_report *rep, rb_error *err)
{
    return rb_openapi_import("doc.json", json, strlen(json), t, rep, err);
}

/* Import corpus/data/openapi/DOC (under base_path, NULL for the
 * document's) and compare it, route for route, with corpus/data/ROUTES
 * (which was made from it) under the prefix `under`; the report is
 * returned. */
static rb_openapi_report expect_document_gives(const char *doc_name, const char *base_path,
                                               const char *routes_name, const char *under)
{
    char doc[512], routes[512];
    snprintf(doc, sizeof doc, "%s/corpus/data/openapi/%s", RB_SOURCE_DIR, doc_name);
    snprintf(routes, sizeof routes, "%s/corpus/data/%s", RB_SOURCE_DIR, routes_name);
    rb_route_table got, want;
    rb_openapi_report rep;
    rb_error err;
    rb_openapi_options opt = {base_path};
    cr_assert_eq(rb_openapi_import_file_with(doc, &opt, &got, &rep, &err), RB_OK, "%s",
                 err.message);
    cr_assert_eq(rb_route_table_read(routes, &want, &err), RB_OK, "%s", err.message);
    cr_assert_eq(got.count, want.count);
    size_t u = strlen(under);
    for (size_t i = 0; i < want.count; i++) {
        cr_expect_eq(got.routes[i].method, want.routes[i].method, "route %zu", i);
        cr_expect(got.routes[i].len == u + want.routes[i].len &&
                      memcmp(rb_route_pattern(&got, i), under, u) == 0 &&
                      memcmp(rb_route_pattern(&got, i) + u, rb_route_pattern(&want, i),
                             want.routes[i].len) == 0,
                  "route %zu: %.*s, want %s%.*s", i, (int)got.routes[i].len,
                  rb_route_pattern(&got, i), under, (int)want.routes[i].len,
                  rb_route_pattern(&want, i));
    }
    if (u == 0) cr_expect_eq(rb_route_table_fingerprint(&got), rb_route_table_fingerprint(&want));
    rb_route_table_free(&got);
    rb_route_table_free(&want);
    return rep;
}

/* Rule: the routes are under the document's base path by default (Discord's
 * servers[0].url is https://discord.com/api/v10); --base-path none gives
 * discord.routes as shipped, KEEP the same as the default. */
Test(openapi, discord_document_gives_discord_routes)
{
    rb_openapi_report rep =
        expect_document_gives("discord.openapi.json", NULL, "discord.routes", "/api/v10");
    cr_expect_str_eq(rep.base_path, "/api/v10");
    cr_expect_str_eq(rep.base_from, "servers[0].url");
    rep = expect_document_gives("discord.openapi.json", "KEEP", "discord.routes", "/api/v10");
    rep = expect_document_gives("discord.openapi.json", "none", "discord.routes", "");
    cr_expect_str_eq(rep.base_path, "");
    cr_expect_str_eq(rep.version, "3.1.0");
    cr_expect_eq(rep.routes, 242);
    cr_expect_eq(rep.skipped + rep.globs + rep.templates + rep.renamed, 0);
}

/* Rule: templates inside a segment stay templates with their names
 * ({Sid}.json), so Twilio's document gives twilio.routes, and every router
 * with templates takes the whole table with named captures. */
Test(openapi, twilio_document_gives_twilio_routes_with_templates)
{
    rb_openapi_report rep =
        expect_document_gives("twilio_api_v2010.json", NULL, "twilio.routes", "");
    cr_expect_str_eq(rep.base_path, "", "https://api.twilio.com has no path");
    cr_expect_str_eq(rep.version, "3.0.1");
    cr_expect_eq(rep.paths, 121);
    cr_expect_eq(rep.routes, 197);
    cr_expect_eq(rep.templates, 45, "45 paths end in {Sid}.json or the like");
    cr_expect_eq(rep.globs + rep.skipped + rep.renamed, 0);
}

Test(openapi, document_order_and_conversions)
{
    const char *json =
        "{\"openapi\": \"3.0.3\", \"info\": {\"title\": \"T\"},\n"
        " \"paths\": {\n"
        "  \"/users\": {\"summary\": \"s\", \"post\": {}, \"get\": {}, \"x-internal\": true},\n"
        "  \"/users/{user-id}/files/{name}.{ext}\": {\"parameters\": [], \"delete\": {}},\n"
        "  \"/t/{x}{y}/{Sid}.json\": {\"get\": {}},\n"
        "  \"/a/{1st}/{1st}\": {\"head\": {}, \"query\": {}},\n"
        "  \"x-note\": {},\n"
        "  \"/shared\": {\"$ref\": \"#/components/pathItems/Shared\", \"put\": {}},\n"
        "  \"/\": {\"trace\": {}, \"options\": {}, \"patch\": {},\n"
        "         \"additionalOperations\": {\"LINK\": {}, \"UNLINK\": {}}}\n"
        " },\n"
        " \"components\": {\"pathItems\": {\"Shared\": {\"get\": {}}}}}\n";
    const char *want[] = {
        "POST /users",
        "GET /users",
        "DELETE /users/{user_id}/files/{name}.{ext}",
        "GET /t/?*?*/{Sid}.json",
        "HEAD /a/{_1st}/{_1st_2}",
        "GET /shared",
        "PUT /shared",
        "TRACE /",
        "OPTIONS /",
        "PATCH /",
    };
    rb_route_table t;
    rb_openapi_report rep;
    rb_error err;
    cr_assert_eq(import(json, &t, &rep, &err), RB_OK, "%s", err.message);
    expect_routes(&t, want, sizeof want / sizeof want[0]);
    cr_expect_eq(rep.paths, 6);
    cr_expect_eq(rep.templates, 2, "{name}.{ext} and {Sid}.json stay templates");
    cr_expect_eq(rep.globs, 1, "{x}{y}: touching params become a glob");
    cr_expect_eq(rep.renamed, 3);
    cr_expect_eq(rep.skipped, 3); /* query + two additional operations */
    cr_expect_str_eq(rep.first_skipped, "paths[\"/a/{1st}/{1st}\"].query");
    cr_expect_eq(rep.refs, 1);
    cr_expect_str_eq(rep.title, "T");
    rb_route_table_free(&t);
}

typedef struct bad_doc {
    const char *json;
    const char *says; /* a piece of the message */
} bad_doc;

static const bad_doc bad[] = {
    {"{\"openapi\": \"3.0.0\",\n  \"paths\": {\"/a\": {\"get\": {},}}}", "doc.json:2:"},
    {"[1, 2]", "not a JSON object"},
    {"{\"swagger\": \"3.0\", \"paths\": {}}", "\"swagger\": expected a version \"2.0\""},
    {"{\"paths\": {}}", "no \"openapi\" (3.x) or \"swagger\" (2.0) field"},
    {"{\"openapi\": \"2.9\", \"paths\": {}}", "expected a version \"3.x\""},
    {"{\"openapi\": 3, \"paths\": {}}", "expected a version \"3.x\""},
    {"{\"openapi\": \"3.1.0\"}", "no \"paths\" object"},
    {"{\"openapi\": \"3.1.0\", \"paths\": []}", "\"paths\" must be an object"},
    {"{\"openapi\": \"3.1.0\", \"paths\": {}}", "holds no operations"},
    {"{\"openapi\": \"3.1.0\", \"paths\": {\"/a\": {\"fetch\": {}}}}",
     "doc.json:1:32: unknown key \"fetch\" in a path item"},
    {"{\"openapi\": \"3.1.0\", \"paths\": {\"/a\": {\"get\": 1}}}",
     "doc.json:1:32: the operation get must be an object, in paths[\"/a\"]"},
    {"{\"openapi\": \"3.1.0\", \"paths\": {\"a\": {\"get\": {}}}}",
     "a path must start with '/', in paths[\"a\"]"},
    {"{\"openapi\": \"3.1.0\", \"paths\": {\"/a\": 7}}", "a path item must be an object"},
    {"{\"openapi\": \"3.1.0\", \"paths\": {\"/a/*b\": {\"get\": {}}}}",
     "segment 2 would be read as a catch-all"},
    {"{\"openapi\": \"3.1.0\", \"paths\": {\"/a/:b\": {\"get\": {}}}}",
     "segment 2 would be read as a parameter"},
    {"{\"openapi\": \"3.1.0\", \"paths\": {\"/a/{b\": {\"get\": {}}}}", "unbalanced '{'"},
    {"{\"openapi\": \"3.1.0\", \"paths\": {\"/a/{b}*.x\": {\"get\": {}}}}",
     "'*' beside a template"},
    {"{\"openapi\": \"3.1.0\", \"paths\": {\"/a\": {\"$ref\": \"other.json#/x\"}}}",
     "only local references"},
    {"{\"openapi\": \"3.1.0\", \"paths\": {\"/a\": {\"$ref\": \"#/components/pathItems/Nope\"}}}",
     "is not a path item in this document"},
    {"{\"openapi\": \"3.1.0\", \"paths\": {\"/a\": {\"get\": {}, \"get\": {}}}}",
     "doc.json:1:50: the key \"get\" is given twice in one object (first at line 1)"},
    {"{\"swagger\": \"2.0\", \"basePath\": 7, \"paths\": {}}", "\"basePath\" must be a string"},
    {"{\"swagger\": \"2.0\", \"basePath\": \"/a b\", \"paths\": {}}",
     "byte 2 of the base path (from basePath) is a space"},
    {"{\"swagger\": \"2.0\", \"basePath\": \"/#api\", \"paths\": {\"/u\": {\"get\": {}}}}",
     "byte 1 of the base path (from basePath) is '#'"},
    {"{\"openapi\": \"3.0.0\", \"servers\": [{\"url\": \"https://h/{v}\"}], \"paths\": {}}",
     "servers[0].url: the variable \"{v}\" has no default"},
    {"{\"openapi\": \"3.0.0\", \"servers\": [{\"url\": \"/x/{v}\", \"variables\": "
     "{\"v\": {\"default\": \"*\"}}}], \"paths\": {}}",
     "of the base path (from servers[0].url) is a wildcard"},
    {"", "doc.json:1:1"},
};

Test(openapi, malformed_documents_name_what_and_where)
{
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rb_route_table t;
        rb_error err;
        memset(&err, 0, sizeof err);
        cr_expect_eq(import(bad[i].json, &t, NULL, &err), RB_EFORMAT, "doc %zu", i);
        cr_expect(strstr(err.message, bad[i].says) != NULL, "doc %zu: '%s' lacks '%s'", i,
                  err.message, bad[i].says);
        cr_expect(strncmp(err.message, "doc.json", 8) == 0, "doc %zu: %s", i, err.message);
        cr_expect_eq(t.count, 0);
    }
}

Test(openapi, json_errors_give_line_and_byte)
{
    const char *json = "{\n  \"openapi\": \"3.0.0\",\n  \"paths\": {\n    \"/a\" {}\n  }\n}";
    rb_route_table t;
    rb_error err;
    cr_assert_eq(import(json, &t, NULL, &err), RB_EFORMAT);
    cr_expect_eq(err.line, 4, "%s", err.message);
    cr_expect_eq(json[err.offset], '{', "offset %zu", err.offset);
}

static int run(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(openapi, cli_import_writes_the_routes_file)
{
    char dir[] = "/tmp/rb_oa_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char out[600], cmd[2048];
    snprintf(out, sizeof out, "%s/d.routes", dir);
    snprintf(cmd, sizeof cmd,
             "'%s/routebench' corpus import --openapi "
             "'%s/corpus/data/openapi/discord.openapi.json' --out %s --base-path none > /dev/null",
             RB_BINARY_DIR, RB_SOURCE_DIR, out);
    cr_assert_eq(run(cmd), 0, "%s", cmd);
    char want_path[512];
    snprintf(want_path, sizeof want_path, "%s/corpus/data/discord.routes", RB_SOURCE_DIR);
    rb_route_table got, want;
    rb_error err;
    cr_assert_eq(rb_route_table_read(out, &got, &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_route_table_read(want_path, &want, &err), RB_OK, "%s", err.message);
    cr_expect_eq(rb_route_table_fingerprint(&got), rb_route_table_fingerprint(&want));
    rb_route_table_free(&got);
    rb_route_table_free(&want);
    snprintf(cmd, sizeof cmd, "'%s/routebench' corpus import --openapi %s/none.json 2>/dev/null",
             RB_BINARY_DIR, dir);
    cr_expect_eq(run(cmd), 2);
    snprintf(cmd, sizeof cmd, "'%s/routebench' corpus import 2>/dev/null", RB_BINARY_DIR);
    cr_expect_eq(run(cmd), 2);
    remove(out);
    rmdir(dir);
}

/* ---- YAML (most OpenAPI documents are YAML) ------------------------------------------------ */

static const char pets_json[] =
    "{\"openapi\": \"3.0.3\", \"info\": {\"title\": \"Pets\", \"version\": \"1\"},\n"
    " \"paths\": {\n"
    "  \"/pets\": {\"get\": {\"summary\": \"list\"}, \"post\": {}},\n"
    "  \"/pets/{petId}\": {\"get\": {}, \"delete\": {}},\n"
    "  \"/pets/{petId}/photo.{ext}\": {\"get\": {}},\n"
    "  \"/stores/{id}\": {\"$ref\": \"#/components/pathItems/Store\"}},\n"
    " \"components\": {\"pathItems\": {\"Store\": {\"put\": {}, \"patch\": {}}}}}\n";

static const char pets_yaml[] = "# a comment, then block style, anchors, a merge key\n"
                                "openapi: 3.0.3\n"
                                "info:\n"
                                "  title: Pets\n"
                                "  version: '1'\n"
                                "x-list: &list\n"
                                "  get:\n"
                                "    summary: list\n"
                                "paths:\n"
                                "  /pets:\n"
                                "    <<: *list\n"
                                "    post: {}\n"
                                "  \"/pets/{petId}\":\n"
                                "    get: {}\n"
                                "    delete: {}\n"
                                "  /pets/{petId}/photo.{ext}: {get: {}}\n"
                                "  /stores/{id}:\n"
                                "    $ref: '#/components/pathItems/Store'\n"
                                "components:\n"
                                "  pathItems:\n"
                                "    Store:\n"
                                "      put: {}\n"
                                "      patch: {}\n";

static int import_named(const char *name, const char *text, rb_route_table *t,
                        rb_openapi_report *rep, rb_error *err)
{
    return rb_openapi_import(name, text, strlen(text), t, rep, err);
}

Test(openapi, yaml_3_0_and_3_1_give_the_routes_of_the_same_json)
{
    rb_route_table j, y;
    rb_openapi_report rj, ry;
    rb_error err;
    cr_assert_eq(import_named("p.json", pets_json, &j, &rj, &err), RB_OK, "%s", err.message);
    cr_assert_eq(import_named("p.yaml", pets_yaml, &y, &ry, &err), RB_OK, "%s", err.message);
    static const char *const want[] = {"GET /pets",
                                       "POST /pets",
                                       "GET /pets/{petId}",
                                       "DELETE /pets/{petId}",
                                       "GET /pets/{petId}/photo.{ext}",
                                       "PUT /stores/{id}",
                                       "PATCH /stores/{id}"};
    expect_routes(&y, want, sizeof want / sizeof want[0]);
    cr_expect_eq(rb_route_table_fingerprint(&y), rb_route_table_fingerprint(&j));
    cr_expect_str_eq(ry.format, "YAML");
    cr_expect_str_eq(rj.format, "JSON");
    cr_expect_str_eq(ry.version, "3.0.3");
    cr_expect_str_eq(ry.title, "Pets");
    rb_route_table_free(&y);
    /* 3.1, and an unquoted `openapi: 3.1` stays the text "3.1", not a number */
    char doc[2048];
    snprintf(doc, sizeof doc, "openapi: 3.1\n%s",
             strchr(pets_yaml, '\n') + 1 + strlen("openapi: 3.0.3\n"));
    cr_assert_eq(import_named("p31.yaml", doc, &y, &ry, &err), RB_OK, "%s", err.message);
    cr_expect_str_eq(ry.version, "3.1");
    cr_expect_eq(rb_route_table_fingerprint(&y), rb_route_table_fingerprint(&j));
    rb_route_table_free(&y);
    rb_route_table_free(&j);
}

/* Discord's published document (malloc'ed, NUL after *len bytes). */
static char *read_discord(size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/corpus/data/openapi/discord.openapi.json", RB_SOURCE_DIR);
    char *json;
    rb_error err;
    cr_assert_eq(rb_file_read(path, &json, len, &err), RB_OK, "%s", err.message);
    return json;
}

Test(openapi, discord_json_read_as_yaml_gives_the_same_routes)
{
    /* JSON is (nearly) YAML flow style: a leading "---" sends Discord's
     * 43,000-line document through the YAML reader */
    size_t len;
    char *json = read_discord(&len);
    rb_error err;
    char *yaml = malloc(len + 5);
    cr_assert_not_null(yaml);
    memcpy(yaml, "---\n", 4);
    memcpy(yaml + 4, json, len + 1);
    rb_route_table j, y;
    rb_openapi_report ry;
    cr_assert_eq(rb_openapi_import("d.json", json, len, &j, NULL, &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_openapi_import("d.yaml", yaml, len + 4, &y, &ry, &err), RB_OK, "%s",
                 err.message);
    cr_expect_str_eq(ry.format, "YAML");
    cr_expect_eq(y.count, j.count);
    cr_expect_eq(rb_route_table_fingerprint(&y), rb_route_table_fingerprint(&j));
    rb_route_table_free(&j);
    rb_route_table_free(&y);
    free(json);
    free(yaml);
}

static const bad_doc bad_yaml[] = {
    {"openapi: 3.1.0\npaths:\n  /a:\n    get: {}\n   post: {}\n", "doc.yaml:5:4: malformed YAML"},
    {"openapi: 3.1.0\npaths:\n  /a:\n    get: {}\n  /a:\n    put: {}\n",
     "doc.yaml:5:3: the key \"/a\" is given twice in one mapping (first at line 3)"},
    {"openapi: 3.1.0\npaths:\n  /a: *nope\n", "doc.yaml:3:7: unknown alias *nope"},
    {"openapi: 3.1.0\npaths: {/a: {get: {}}}\n---\nopenapi: 3.1.0\n",
     "more than one YAML document"},
    {"swagger: '2.0'\npaths: {}\n", "\"paths\" holds no operations"},
    {"openapi: 3.1.0\npaths:\n  ? [a, b]\n  : {}\n", "doc.yaml:3:5: a mapping key must be"},
    {"- openapi\n- 3.1.0\n", "not a YAML mapping"},
    {"openapi: 3.1.0\npaths:\n  /a:\n    fetch: {}\n",
     "doc.yaml:3:3: unknown key \"fetch\" in a path item"},
    {"openapi: 3.1.0\npaths:\n  /a:\n    get:\n",
     "doc.yaml:3:3: the operation get must be an object, in paths[\"/a\"]"},
    {"openapi: 3.1.0\npaths: {/a: {get: {}}\n", "doc.yaml:"},
    /* a billion laughs: nine levels of ten aliases */
    {"a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
     "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, "
     "*c]\n"
     "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, "
     "*e]\n"
     "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n",
     "aliases expand the document too much"},
};

Test(openapi, yaml_errors_name_line_and_column)
{
    for (size_t i = 0; i < sizeof bad_yaml / sizeof bad_yaml[0]; i++) {
        rb_route_table t;
        rb_error err;
        memset(&err, 0, sizeof err);
        cr_expect_eq(import_named("doc.yaml", bad_yaml[i].json, &t, NULL, &err), RB_EFORMAT,
                     "doc %zu", i);
        cr_expect(strstr(err.message, bad_yaml[i].says) != NULL, "doc %zu: '%s' lacks '%s'", i,
                  err.message, bad_yaml[i].says);
        cr_expect_eq(t.count, 0);
    }
}

/* Regression 11: a truncated JSON document was reported as
 * `malformed JSON near " "` (cJSON stops at the value it cannot finish). */
Test(openapi, regression_11_truncated_json_says_unexpected_end_of_input)
{
    size_t len;
    char *json = read_discord(&len);
    rb_error err;
    for (size_t cut = 1; cut < len - 2; cut += len / 23) {
        rb_route_table t;
        cr_expect_eq(rb_openapi_import("d.json", json, cut, &t, NULL, &err), RB_EFORMAT);
        cr_expect(strstr(err.message, "unexpected end of input") != NULL, "cut at %zu: %s", cut,
                  err.message);
    }
    free(json);
}

/* Regression 12: the bytes of a binary file were copied into the
 * message ("near" text), so the terminal got raw control bytes. */
Test(openapi, regression_12_binary_bytes_never_reach_the_message)
{
    static const char *const docs[] = {"\x7f"
                                       "ELF\x02\x01\x01\x00\x00\x00\x1b[31m",
                                       "{\"openapi\": \"3.0.0\", \x1b[2J\"paths\": {}}",
                                       "openapi: 3.0.0\npaths:\n  /a\xff\xfe: {}\n",
                                       "{\"openapi\": \"3.0.0\", \"paths\" \x01\x02\x03}"};
    static const size_t lens[] = {14, 37, 29, 35};
    static const char *const where[] = {"doc:1:1:", "doc:1:22:", "doc:3:5:", "doc:1:30:"};
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        rb_route_table t;
        rb_error err;
        cr_expect_eq(rb_openapi_import("doc", docs[i], lens[i], &t, NULL, &err), RB_EFORMAT);
        for (const char *p = err.message; *p; p++)
            cr_expect((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f,
                      "doc %zu: byte 0x%02x in the message", i, (unsigned char)*p);
        cr_expect(strstr(err.message, where[i]) != NULL, "doc %zu: %s", i, err.message);
        cr_expect(strstr(err.message, "not a text document") != NULL, "doc %zu: %s", i,
                  err.message);
    }
}

/* ---- what servers route: base paths, Swagger 2.0, variants --------------------------------- */

/* Import tests/data/openapi/NAME. */
static int import_fixture(const char *name, const char *base_path, rb_route_table *t,
                          rb_openapi_report *rep, rb_error *err)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/openapi/%s", RB_SOURCE_DIR, name);
    rb_openapi_options opt = {base_path};
    return rb_openapi_import_file_with(path, &opt, t, rep, err);
}

/* Rule: Box's shape — servers[0].url with a {version} variable gives the
 * base path /2.0 (its default), the second server's /api/2.0 is named as
 * another choice; "#fragment" and "?query" keys are routed as their path
 * and their operations merge into the route of the same method and path
 * (4 of them: the 5th variant, /shared_items#folders, has no plain path and
 * is a route of its own); the rewritten parameter name is named with its
 * reason.  The YAML and JSON forms give the same. */
Test(openapi, box_like_document_routes_what_the_server_routes)
{
    static const char *const want[] = {
        "GET /2.0/files/{file_id}",    "PUT /2.0/files/{file_id}",
        "DELETE /2.0/files/{file_id}", "GET /2.0/folders/{folder_id}",
        "GET /2.0/shared_items",       "GET /2.0/metadata_templates/{scope}/{template_key}/schema"};
    static const char *const forms[] = {"box_like.yaml", "box_like.json"};
    for (size_t f = 0; f < 2; f++) {
        rb_route_table t;
        rb_openapi_report rep;
        rb_error err;
        cr_assert_eq(import_fixture(forms[f], NULL, &t, &rep, &err), RB_OK, "%s", err.message);
        expect_routes(&t, want, sizeof want / sizeof want[0]);
        cr_expect_eq(rep.paths, 8, "%s", forms[f]);
        cr_expect_str_eq(rep.base_path, "/2.0");
        cr_expect_str_eq(rep.base_from, "servers[0].url");
        cr_expect_eq(rep.servers, 2);
        cr_expect_eq(rep.server_bases, 2);
        cr_expect_str_eq(rep.other_base, "/api/2.0");
        cr_expect_eq(rep.variants, 5);
        cr_expect_eq(rep.merged, 4);
        cr_expect_str_eq(rep.merges[0], "paths[\"/files/{file_id}#get_shared_link\"].get -> GET "
                                        "/2.0/files/{file_id}");
        cr_expect_str_eq(rep.merges[3],
                         "paths[\"/folders/{folder_id}?fields=shared_link\"].get -> GET "
                         "/2.0/folders/{folder_id}");
        cr_expect_eq(rep.renamed, 1);
        cr_expect(strstr(rep.first_renamed, "{template-key} written {template_key}: '-' is not "
                                            "a name byte") != NULL,
                  "%s", rep.first_renamed);
        rb_route_table_free(&t);
    }
}

/* Rule: a plain path given after its variant takes the variant's route: one
 * route, the merge counted. */
Test(openapi, a_variant_before_its_plain_path_merges_too)
{
    const char *json = "{\"openapi\": \"3.0.0\", \"paths\": {\"/a#x\": {\"get\": {}},\n"
                       " \"/a\": {\"get\": {}, \"put\": {}}, \"/b/{x-y}\": {\"get\": {}},\n"
                       " \"/b/{x_y}\": {\"get\": {}}}}";
    static const char *const want[] = {"GET /a", "PUT /a", "GET /b/{x_y}", "GET /b/{x_y}"};
    rb_route_table t;
    rb_openapi_report rep;
    rb_error err;
    cr_assert_eq(import(json, &t, &rep, &err), RB_OK, "%s", err.message);
    expect_routes(&t, want, 4); /* two plain paths of one route: both written, as before */
    cr_expect_eq(rep.variants, 1);
    cr_expect_eq(rep.merged, 1);
    cr_expect_str_eq(rep.merges[0], "paths[\"/a\"].get -> GET /a");
    rb_route_table_free(&t);
}

/* Rule: Swagger 2.0 is imported directly — its paths object is 3.x's, its
 * basePath the prefix; parameters (path-level or in an operation) change no
 * route.  YAML and JSON give the same. */
Test(openapi, swagger_2_0_imports_under_its_base_path)
{
    static const char *const want[] = {
        "GET /api/api.test", "POST /api/chat.postMessage", "GET /api/conversations.history",
        "GET /api/users/{user}/profile", "POST /api/users/{user}/profile"};
    static const char *const forms[] = {"slack_like.yaml", "slack_like.json"};
    for (size_t f = 0; f < 2; f++) {
        rb_route_table t;
        rb_openapi_report rep;
        rb_error err;
        cr_assert_eq(import_fixture(forms[f], NULL, &t, &rep, &err), RB_OK, "%s", err.message);
        expect_routes(&t, want, sizeof want / sizeof want[0]);
        cr_expect_str_eq(rep.spec, "Swagger");
        cr_expect_str_eq(rep.version, "2.0");
        cr_expect_str_eq(rep.base_path, "/api");
        cr_expect_str_eq(rep.base_from, "basePath");
        cr_expect_str_eq(rep.title, "Slack-like Web API");
        rb_route_table_free(&t);
        cr_assert_eq(import_fixture(forms[f], "none", &t, &rep, &err), RB_OK, "%s", err.message);
        cr_expect_eq(t.count, 5);
        cr_expect_str_eq(rb_route_pattern(&t, 0), "/api.test");
        rb_route_table_free(&t);
    }
}

/* Rule: --base-path KEEP (the document's), none, or /PATH (a trailing '/'
 * dropped); anything else is RB_EINVAL.  A server URL may be a full URL,
 * "//host/path" or a path; its query and trailing '/' are not routed. */
Test(openapi, base_path_choices)
{
    static const struct {
        const char *servers, *option, *first;
    } cases[] = {
        {"[{\"url\": \"https://h.example/v1/\"}]", NULL, "GET /v1/a"},
        {"[{\"url\": \"https://h.example/v1/\"}]", "KEEP", "GET /v1/a"},
        {"[{\"url\": \"https://h.example/v1/\"}]", "none", "GET /a"},
        {"[{\"url\": \"https://h.example/v1/\"}]", "/x/y/", "GET /x/y/a"},
        {"[{\"url\": \"//h.example/p?debug=1\"}]", NULL, "GET /p/a"},
        {"[{\"url\": \"/rel/\"}]", NULL, "GET /rel/a"},
        {"[{\"url\": \"https://h.example\"}]", NULL, "GET /a"},
        {"[{\"url\": \"{scheme}://h/{v}\", \"variables\": {\"scheme\": {\"default\": \"https\"}, "
         "\"v\": {\"default\": \"v3\", \"enum\": [\"v3\", \"v4\"]}}}]",
         NULL, "GET /v3/a"},
        {"[]", NULL, "GET /a"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char doc[512];
        snprintf(doc, sizeof doc,
                 "{\"openapi\": \"3.0.0\", \"servers\": %s, \"paths\": {\"/a\": {\"get\": {}}}}",
                 cases[i].servers);
        rb_route_table t;
        rb_error err;
        rb_openapi_options opt = {cases[i].option};
        cr_assert_eq(rb_openapi_import_with("doc.json", doc, strlen(doc), &opt, &t, NULL, &err),
                     RB_OK, "case %zu: %s", i, err.message);
        expect_routes(&t, &cases[i].first, 1);
        rb_route_table_free(&t);
    }
    rb_route_table t;
    rb_error err;
    rb_openapi_options wrong = {"api"};
    const char *doc = "{\"openapi\": \"3.0.0\", \"paths\": {\"/a\": {\"get\": {}}}}";
    cr_expect_eq(rb_openapi_import_with("doc.json", doc, strlen(doc), &wrong, &t, NULL, &err),
                 RB_EINVAL);
    cr_expect(strstr(err.message, "KEEP, none or a path") != NULL, "%s", err.message);
}

/* Rule: the CLI says what it prefixed, and which other base paths servers
 * lists and how to choose one. */
Test(openapi, cli_import_names_the_base_path_and_the_merges)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "'%s/routebench' corpus import --openapi '%s/tests/data/openapi/box_like.yaml' "
             "2>&1 >/dev/null",
             RB_BINARY_DIR, RB_SOURCE_DIR);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    char out[8192];
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    cr_expect_eq(pclose(p), 0);
    cr_expect(strstr(out, "base path /2.0 (from servers[0].url) prefixed to every route") != NULL,
              "%s", out);
    cr_expect(strstr(out, "--base-path /api/2.0") != NULL, "%s", out);
    cr_expect(strstr(out, "5 path keys with a #fragment or ?query routed as their path: 4 "
                          "operations merged") != NULL,
              "%s", out);
    cr_expect(strstr(out, "paths[\"/files/{file_id}#add_shared_link\"].put -> PUT "
                          "/2.0/files/{file_id}") != NULL,
              "%s", out);
    cr_expect(strstr(out, "{template-key} written {template_key}") != NULL, "%s", out);
}

/* Regression 135: parameter names were cut at 47 bytes, so Box's
 * {shield_information_barrier_segment_restriction_id} (50 bytes) was
 * "rewritten" to a name the document does not have. */
Test(openapi, regression_135_long_parameter_names_are_kept)
{
    const char *json = "{\"openapi\": \"3.0.0\", \"paths\": {\"/r/"
                       "{shield_information_barrier_segment_restriction_id}\": {\"get\": {}}}}";
    static const char *const want[] = {
        "GET /r/{shield_information_barrier_segment_restriction_id}"};
    rb_route_table t;
    rb_openapi_report rep;
    rb_error err;
    cr_assert_eq(import(json, &t, &rep, &err), RB_OK, "%s", err.message);
    expect_routes(&t, want, 1);
    cr_expect_eq(rep.renamed, 0);
    rb_route_table_free(&t);
}

/* Rule: an alias of a mapping's value becomes the value of another key
 * (the copy's old key is freed: the ASan build finds a leak otherwise). */
Test(openapi, an_alias_of_a_members_value_is_a_value)
{
    const char *yaml = "openapi: 3.0.0\nx-item: &item {get: {}, put: {}}\npaths:\n  /a: *item\n"
                       "  /b: *item\n";
    static const char *const want[] = {"GET /a", "PUT /a", "GET /b", "PUT /b"};
    rb_route_table t;
    rb_error err;
    cr_assert_eq(import_named("doc.yaml", yaml, &t, NULL, &err), RB_OK, "%s", err.message);
    expect_routes(&t, want, 4);
    rb_route_table_free(&t);
}

/* ---- hints at the point of error -------------------------------------------------------------- */

/* Rule: an OpenAPI or Swagger document (YAML or JSON) given where a routes
 * table is expected is named as one, with the option to use. */
Test(openapi, a_document_given_for_a_routes_table_gets_the_hint)
{
    static const char *const docs[] = {
        "# my API\nopenapi: 3.0.0\npaths: {}\n",
        "{\n  \"info\": {\"title\": \"t\"},\n  \"openapi\": \"3.1.0\",\n  \"paths\": {}\n}\n",
        "swagger: \"2.0\"\npaths: {}\n",
        "{\"swagger\": \"2.0\", \"paths\": {}}",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        rb_route_table t;
        rb_error err;
        cr_expect_eq(rb_route_table_parse("api.doc", docs[i], strlen(docs[i]), &t, &err),
                     RB_EFORMAT, "doc %zu", i);
        cr_expect(strstr(err.message, "api.doc:") == err.message, "%s", err.message);
        cr_expect(strstr(err.message, "this looks like an OpenAPI") != NULL &&
                      strstr(err.message, "document: use --openapi FILE (or corpus import)"),
                  "doc %zu: %s", i, err.message);
    }
    /* a routes file that mentions openapi in a comment is not one */
    const char *routes = "# openapi: not a key here\nGET /a\nopenapi: x\n";
    rb_route_table t;
    rb_error err;
    cr_expect_eq(rb_route_table_parse("r.routes", routes, strlen(routes), &t, &err), RB_EFORMAT);
    cr_expect_eq(rb_openapi_sniff(routes, strlen(routes)), 3, "a line starting with the key");
    const char *plain = "# a table\nGET /openapi/swagger\n";
    cr_expect_eq(rb_openapi_sniff(plain, strlen(plain)), 0);
}

/* Rule: the same hint from the CLI, where a table or profile is read
 * (--like takes JSON profiles, so a JSON document is sniffed there too). */
Test(openapi, cli_hints_use_openapi_for_routes_and_like)
{
    static const struct {
        const char *command, *file, *rest;
    } cmds[] = {
        {"corpus check", "box_like.yaml", ""},
        {"corpus gen --routes 10 --seed 1 --like", "box_like.json", "--out /tmp/rb_hint_never"},
        {"corpus profile", "slack_like.json", ""},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char args[700], cmd[1024];
        snprintf(args, sizeof args, "%s '%s/tests/data/openapi/%s' %s", cmds[i].command,
                 RB_SOURCE_DIR, cmds[i].file, cmds[i].rest);
        snprintf(cmd, sizeof cmd, "'%s/routebench' %s 2>&1", RB_BINARY_DIR, args);
        FILE *p = popen(cmd, "r");
        cr_assert_not_null(p);
        char out[4096];
        size_t n = fread(out, 1, sizeof out - 1, p);
        out[n] = '\0';
        int st = pclose(p);
        cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 2, "%s: status %d", args, st);
        cr_expect(strstr(out, "looks like an OpenAPI") != NULL &&
                      strstr(out, "use --openapi FILE (or corpus import)") != NULL,
                  "%s: %s", args, out);
    }
}

/* ---- budgets and hostile documents ------------------------------------------------------------ */

/* A malloc'ed YAML document: a 1 MB scalar anchored once and copied
 * `copies` times, by aliases (merge false) or by merge keys (merge true). */
static char *scalar_bomb(size_t copies, bool merge, size_t *len)
{
    size_t big = (size_t)1 << 20, cap = big + 64 * copies + 256;
    char *doc = malloc(cap);
    cr_assert_not_null(doc);
    size_t w = (size_t)snprintf(doc, cap, "openapi: 3.0.0\nx-big: %s\"", merge ? "&m {k: " : "&b ");
    memset(doc + w, 'x', big);
    w += big;
    w += (size_t)snprintf(doc + w, cap - w, "\"%s\nx-copies:\n", merge ? "}" : "");
    for (size_t i = 0; i < copies; i++)
        w += (size_t)snprintf(doc + w, cap - w, merge ? "  - {<<: *m}\n" : "  - *b\n");
    w += (size_t)snprintf(doc + w, cap - w, "paths:\n  /a: {get: {}}\n");
    *len = w;
    return doc;
}

/* Regression 130: aliases were counted in nodes only, so one 1 MB scalar
 * aliased 2,000 times (a 1 MB file) took 2 GB and was accepted; copies are
 * now counted in bytes too, before copying (100 copies, 100 MB, are over
 * the 64 MiB budget), and so are merge keys'. */
Test(openapi, regression_130_alias_copies_are_counted_in_bytes)
{
    for (int merge = 0; merge < 2; merge++) {
        size_t len;
        char *doc = scalar_bomb(100, merge, &len);
        rb_route_table t;
        rb_error err;
        cr_expect_eq(rb_openapi_import("bomb.yaml", doc, len, &t, NULL, &err), RB_EFORMAT,
                     "merge %d", merge);
        cr_expect(strstr(err.message, "aliases expand the document too much") != NULL &&
                      strstr(err.message, "64 MiB") != NULL,
                  "merge %d: %s", merge, err.message);
        cr_expect(strncmp(err.message, "bomb.yaml:", 10) == 0 && atoi(err.message + 10) > 4,
                  "at the line of a copy: %s", err.message);
        free(doc);
        /* within the budget: 10 copies are imported */
        doc = scalar_bomb(10, merge, &len);
        cr_expect_eq(rb_openapi_import("ok.yaml", doc, len, &t, NULL, &err), RB_OK, "%s",
                     err.message);
        rb_route_table_free(&t);
        free(doc);
    }
}

/* The instructions `routebench corpus import --openapi path` executes,
 * counted by Callgrind (exact on one machine). */
static double import_instructions(const char *path)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd,
             "valgrind --tool=callgrind --callgrind-out-file=/dev/null '%s/routebench' corpus "
             "import --openapi '%s' 2>&1 >/dev/null | sed -n 's/.*Collected : //p'",
             RB_BINARY_DIR, path);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    double n = 0;
    cr_assert_eq(fscanf(p, "%lf", &n), 1, "%s", cmd);
    pclose(p);
    return n;
}

/* A document of n path keys and a mapping of n keys merged into another,
 * as YAML or JSON (no merge keys: a mapping of n keys copied). */
static void write_many_keys(const char *path, size_t n, bool json)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    if (json) {
        fprintf(f, "{\"openapi\": \"3.0.0\", \"x-base\": {\"k\": 1");
        for (size_t i = 0; i < n; i++) fprintf(f, ", \"k%zu\": 1", i);
        fprintf(f, "},\n\"paths\": {\"/a\": {\"get\": {}}");
        for (size_t i = 0; i < n; i++) fprintf(f, ",\n \"/p%zu\": {\"get\": {}}", i);
        fprintf(f, "}}\n");
    } else {
        fprintf(f, "openapi: 3.0.0\nx-base: &base\n  k: 1\n");
        for (size_t i = 0; i < n; i++) fprintf(f, "  k%zu: 1\n", i);
        fprintf(f, "x-merged:\n  <<: *base\n  extra: 2\npaths:\n  /a: {get: {}}\n");
        for (size_t i = 0; i < n; i++) fprintf(f, "  /p%zu: {get: {}}\n", i);
    }
    cr_assert_eq(fclose(f), 0);
}

/* Regression 131: each mapping key was checked against the keys before it
 * (and each merged key against the mapping), so 40k keys took 7 s and 300k
 * did not finish in 300 s.  With hash sets the work is linear: 4 times the
 * keys cost about 4 times the instructions (the quadratic reader: 13
 * times from 2,000 to 8,000 keys), in YAML and JSON alike. */
Test(openapi, regression_131_many_keys_cost_instructions_linear_in_the_keys)
{
    if (RB_TEST_SANITIZED) cr_skip_test("sanitized build: Valgrind cannot run it");
    if (system("valgrind --version >/dev/null 2>&1") != 0)
        cr_skip_test("valgrind is not installed (scripts/setup.sh installs it): skipped");
    char dir[] = "/tmp/rb_keys_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    for (int json = 0; json < 2; json++) {
        double ins[3];
        static const size_t n[3] = {0, 2000, 8000};
        char path[3][600];
        for (int i = 0; i < 3; i++) {
            snprintf(path[i], sizeof path[i], "%s/keys%zu.%s", dir, n[i], json ? "json" : "yaml");
            write_many_keys(path[i], n[i], json);
            ins[i] = import_instructions(path[i]);
        }
        double ratio = (ins[2] - ins[0]) / (ins[1] - ins[0]);
        cr_expect(ratio > 3 && ratio < 6,
                  "%s: 8,000 keys cost %.1f times the instructions of 2,000 (%.0f, %.0f, %.0f)",
                  json ? "JSON" : "YAML", ratio, ins[0], ins[1], ins[2]);
        for (int i = 0; i < 3; i++) remove(path[i]);
    }
    rmdir(dir);
}

/* Regression 132: JSON kept both members of a key given twice (cJSON does),
 * so the import wrote GET /a twice, a table its readers refuse; JSON now
 * refuses it as YAML does, naming both lines, in any object. */
Test(openapi, regression_132_json_refuses_a_key_given_twice_like_yaml)
{
    static const bad_doc docs[] = {
        {"{\"openapi\": \"3.0.0\", \"paths\": {\n  \"/a\": {\"get\": {}},\n  \"/a\": {\"get\": "
         "{}}\n}}\n",
         "doc.json:3:3: the key \"/a\" is given twice in one object (first at line 2)"},
        {"---\n{\"openapi\": \"3.0.0\", \"paths\": {\n  \"/a\": {\"get\": {}},\n  \"/a\": "
         "{\"get\": {}}\n}}\n",
         "doc.json:4:3: the key \"/a\" is given twice in one mapping (first at line 3)"},
        {"{\"openapi\": \"3.0.0\", \"paths\": {\"/a\": {\"get\": {\"responses\": {\"200\": {},\n"
         "\"200\": {}}}}}}",
         "doc.json:2:1: the key \"200\" is given twice in one object (first at line 1)"},
        {"{\"openapi\": \"3.0.0\", \"openapi\": \"3.1.0\", \"paths\": {\"/a\": {\"get\": {}}}}",
         "doc.json:1:22: the key \"openapi\" is given twice"},
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        rb_route_table t;
        rb_error err;
        cr_expect_eq(import(docs[i].json, &t, NULL, &err), RB_EFORMAT, "doc %zu", i);
        cr_expect(strstr(err.message, docs[i].says) != NULL, "doc %zu: '%s' lacks '%s'", i,
                  err.message, docs[i].says);
        cr_expect_eq(t.count, 0);
    }
}

/* Regression 133: a document of any size was read and parsed whole (a
 * 100 MB YAML one did not finish in 300 s); one over 256 MiB is now
 * refused before it is read, and JSON with more values than the tree's
 * budget before it is parsed, each naming the budget. */
Test(openapi, regression_133_documents_over_the_budget_are_refused_up_front)
{
    char path[] = "/tmp/rb_big_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert_eq(ftruncate(fd, (off_t)RB_OPENAPI_MAX_BYTES + 1), 0); /* sparse: no disk used */
    close(fd);
    rb_route_table t;
    rb_error err;
    cr_expect_eq(rb_openapi_import_file(path, &t, NULL, &err), RB_EFORMAT);
    cr_expect(strstr(err.message, "the document is too large: 268435457 bytes, the budget is "
                                  "256 MiB") != NULL,
              "%s", err.message);
    remove(path);
    size_t n = RB_OPENAPI_MAX_NODES + 1, len = 2 * n + 1;
    char *doc = malloc(len + 1);
    cr_assert_not_null(doc);
    doc[0] = '[';
    for (size_t i = 0; i < n; i++) memcpy(doc + 1 + 2 * i, "1,", 2);
    doc[len - 1] = ']';
    doc[len] = '\0';
    cr_expect_eq(rb_openapi_import("many.json", doc, len, &t, NULL, &err), RB_EFORMAT);
    cr_expect(strstr(err.message, "many.json:1:1: the document is too large: over 16000000 "
                                  "values") != NULL,
              "%s", err.message);
    free(doc);
}

/* A JSON (or, with "---" and an explicit key, YAML) document whose one
 * path is `n` bytes: '/', then 'a's with a tab at byte `tab`; the offset
 * of the key's '"' in *key. */
static char *long_path_doc(size_t n, size_t tab, bool yaml, size_t *len, size_t *key)
{
    size_t cap = n + 128;
    char *doc = malloc(cap);
    cr_assert_not_null(doc);
    /* YAML: a key over 1,024 bytes must be explicit ("? key"), as in YAML 1.1 */
    size_t w = (size_t)snprintf(doc, cap, "%s{\"openapi\": \"3.0.0\", \"paths\": {\n%s",
                                yaml ? "---\n" : "", yaml ? "? " : "");
    *key = w;
    doc[w++] = '"';
    for (size_t i = 0; i < n; i++) {
        if (i == tab) {
            memcpy(doc + w, "\\t", 2);
            w += 2;
        } else {
            doc[w++] = i == 0 ? '/' : 'a';
        }
    }
    w += (size_t)snprintf(doc + w, cap - w, "\": {\"get\": {}}}}\n");
    *len = w;
    return doc;
}

/* Regression 134: the message about a path with a tab quoted the path
 * first, whole, so a 301-byte path cut it off at 261 characters, inside
 * the path, without the reason or the byte (a 50 MB path the same).  Now
 * where and why come first, the path last, as 40 bytes and "...". */
Test(openapi, regression_134_a_message_about_a_long_value_keeps_its_reason)
{
    static const size_t sizes[][2] = {{301, 151}, {5u << 20, 4u << 20}, {64, 3}};
    for (int yaml = 0; yaml < 2; yaml++) {
        for (size_t i = 0; i < 3; i++) {
            size_t len, key;
            char *doc = long_path_doc(sizes[i][0], sizes[i][1], yaml, &len, &key);
            rb_route_table t;
            rb_error err;
            cr_expect_eq(rb_openapi_import("doc", doc, len, &t, NULL, &err), RB_EFORMAT);
            char want[200];
            snprintf(want, sizeof want, "doc:%d:%d: byte %zu of the %zu-byte path is a tab (0x09)",
                     2 + yaml, 1 + 2 * yaml, sizes[i][1], sizes[i][0]);
            cr_expect(strncmp(err.message, want, strlen(want)) == 0, "'%s' does not start '%s'",
                      err.message, want);
            size_t n = strlen(err.message);
            cr_expect(n < sizeof err.message - 1, "the message fills its buffer: cut off?");
            const char *tail = sizes[i][0] > 40 ? "aaaa...\"]" : "aa\\taaa";
            cr_expect(strstr(err.message, tail) != NULL, "%s", err.message);
            cr_expect_eq(err.offset, key, "the key's byte in the document");
            free(doc);
        }
    }
}
