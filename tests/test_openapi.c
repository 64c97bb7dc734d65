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

/* Import corpus/data/openapi/DOC and compare it, route for route, with
 * corpus/data/ROUTES (which was made from it); the report is returned. */
static rb_openapi_report expect_document_gives(const char *doc_name, const char *routes_name)
{
    char doc[512], routes[512];
    snprintf(doc, sizeof doc, "%s/corpus/data/openapi/%s", RB_SOURCE_DIR, doc_name);
    snprintf(routes, sizeof routes, "%s/corpus/data/%s", RB_SOURCE_DIR, routes_name);
    rb_route_table got, want;
    rb_openapi_report rep;
    rb_error err;
    cr_assert_eq(rb_openapi_import_file(doc, &got, &rep, &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_route_table_read(routes, &want, &err), RB_OK, "%s", err.message);
    cr_assert_eq(got.count, want.count);
    for (size_t i = 0; i < want.count; i++) {
        cr_expect_eq(got.routes[i].method, want.routes[i].method, "route %zu", i);
        cr_expect(got.routes[i].len == want.routes[i].len &&
                      memcmp(rb_route_pattern(&got, i), rb_route_pattern(&want, i),
                             want.routes[i].len) == 0,
                  "route %zu: %.*s, want %.*s", i, (int)got.routes[i].len,
                  rb_route_pattern(&got, i), (int)want.routes[i].len, rb_route_pattern(&want, i));
    }
    cr_expect_eq(rb_route_table_fingerprint(&got), rb_route_table_fingerprint(&want));
    rb_route_table_free(&got);
    rb_route_table_free(&want);
    return rep;
}

Test(openapi, discord_document_gives_discord_routes)
{
    rb_openapi_report rep = expect_document_gives("discord.openapi.json", "discord.routes");
    cr_expect_str_eq(rep.version, "3.1.0");
    cr_expect_eq(rep.routes, 242);
    cr_expect_eq(rep.skipped + rep.globs + rep.templates + rep.renamed, 0);
}

/* Rule: templates inside a segment stay templates with their names
 * ({Sid}.json), so Twilio's document gives twilio.routes, and every router
 * with templates takes the whole table with named captures. */
Test(openapi, twilio_document_gives_twilio_routes_with_templates)
{
    rb_openapi_report rep = expect_document_gives("twilio_api_v2010.json", "twilio.routes");
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
    {"{\"swagger\": \"2.0\", \"paths\": {}}", "Swagger 2.0"},
    {"{\"paths\": {}}", "no \"openapi\" field"},
    {"{\"openapi\": \"2.9\", \"paths\": {}}", "expected a version \"3.x\""},
    {"{\"openapi\": 3, \"paths\": {}}", "expected a version \"3.x\""},
    {"{\"openapi\": \"3.1.0\"}", "no \"paths\" object"},
    {"{\"openapi\": \"3.1.0\", \"paths\": []}", "\"paths\" must be an object"},
    {"{\"openapi\": \"3.1.0\", \"paths\": {}}", "holds no operations"},
    {"{\"openapi\": \"3.1.0\", \"paths\": {\"/a\": {\"fetch\": {}}}}",
     "paths[\"/a\"]: unknown key \"fetch\""},
    {"{\"openapi\": \"3.1.0\", \"paths\": {\"/a\": {\"get\": 1}}}",
     "paths[\"/a\"].get: an operation must be an object"},
    {"{\"openapi\": \"3.1.0\", \"paths\": {\"a\": {\"get\": {}}}}",
     "paths[\"a\"]: a path must start with '/'"},
    {"{\"openapi\": \"3.1.0\", \"paths\": {\"/a\": 7}}", "paths[\"/a\"]: a path item"},
    {"{\"openapi\": \"3.1.0\", \"paths\": {\"/a/*b\": {\"get\": {}}}}",
     "paths[\"/a/*b\"]: segment 2 would be read as a catch-all"},
    {"{\"openapi\": \"3.1.0\", \"paths\": {\"/a/:b\": {\"get\": {}}}}",
     "segment 2 would be read as a parameter"},
    {"{\"openapi\": \"3.1.0\", \"paths\": {\"/a/{b\": {\"get\": {}}}}", "unbalanced '{'"},
    {"{\"openapi\": \"3.1.0\", \"paths\": {\"/a/{b}*.x\": {\"get\": {}}}}",
     "'*' beside a template"},
    {"{\"openapi\": \"3.1.0\", \"paths\": {\"/a\": {\"$ref\": \"other.json#/x\"}}}",
     "only local references"},
    {"{\"openapi\": \"3.1.0\", \"paths\": {\"/a\": {\"$ref\": \"#/components/pathItems/Nope\"}}}",
     "is not a path item in this document"},
    {"{\"openapi\": \"3.1.0\", \"paths\": {\"/a\": {\"get\": {}, \"get\": {}}}}", "defined twice"},
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
             "'%s/corpus/data/openapi/discord.openapi.json' --out %s > /dev/null",
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
     "doc.yaml:5:3: the key \"/a\" is given twice"},
    {"openapi: 3.1.0\npaths:\n  /a: *nope\n", "doc.yaml:3:7: unknown alias *nope"},
    {"openapi: 3.1.0\npaths: {/a: {get: {}}}\n---\nopenapi: 3.1.0\n",
     "more than one YAML document"},
    {"swagger: '2.0'\npaths: {}\n", "Swagger 2.0"},
    {"openapi: 3.1.0\npaths:\n  ? [a, b]\n  : {}\n", "doc.yaml:3:5: a mapping key must be"},
    {"- openapi\n- 3.1.0\n", "not a YAML mapping"},
    {"openapi: 3.1.0\npaths:\n  /a:\n    fetch: {}\n", "paths[\"/a\"]: unknown key \"fetch\""},
    {"openapi: 3.1.0\npaths:\n  /a:\n    get:\n",
     "paths[\"/a\"].get: an operation must be an object"},
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
