/*
 * test_openapi.c — OpenAPI 3 import (corpus/openapi.h).
 *
 * Rules checked: Discord's published document gives exactly
 * corpus/data/discord.routes (which was made from it), route for route;
 * operations come in document order; templates inside a segment become
 * globs, odd names are rewritten, 3.2 operations are skipped and counted,
 * local $refs are followed; every malformed or unsupported document is an
 * error that names what and where.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

Test(openapi, discord_document_gives_discord_routes)
{
    char doc[512], routes[512];
    snprintf(doc, sizeof doc, "%s/corpus/data/openapi/discord.openapi.json", RB_SOURCE_DIR);
    snprintf(routes, sizeof routes, "%s/corpus/data/discord.routes", RB_SOURCE_DIR);
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
    cr_expect_str_eq(rep.version, "3.1.0");
    cr_expect_eq(rep.routes, 242);
    cr_expect_eq(rep.skipped + rep.globs + rep.renamed, 0);
    rb_route_table_free(&got);
    rb_route_table_free(&want);
}

Test(openapi, document_order_and_conversions)
{
    const char *json =
        "{\"openapi\": \"3.0.3\", \"info\": {\"title\": \"T\"},\n"
        " \"paths\": {\n"
        "  \"/users\": {\"summary\": \"s\", \"post\": {}, \"get\": {}, \"x-internal\": true},\n"
        "  \"/users/{user-id}/files/{name}.{ext}\": {\"parameters\": [], \"delete\": {}},\n"
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
        "DELETE /users/{user_id}/files/?*.?*",
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
    cr_expect_eq(rep.paths, 5);
    cr_expect_eq(rep.globs, 1);
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
