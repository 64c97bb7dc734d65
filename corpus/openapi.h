/*
 * openapi.h — route tables from OpenAPI 3.x and Swagger 2.0 documents, YAML
 * or JSON.
 *
 * Every operation of the document becomes one route "METHOD PATH", paths
 * in document order and, within a path, operations in document order, each
 * path under the document's base path, so users can benchmark routers on
 * the routes their server routes:
 *
 *     "servers": [{"url": "https://api.example.com/v2"}],
 *     "paths": { "/users/{id}": { "get": {...}, "delete": {...} } }
 *  -> GET /v2/users/{id}
 *     DELETE /v2/users/{id}
 *
 * Reading: a document whose first character (after blanks and a byte-order
 * mark) is '{' is JSON (cJSON), anything else YAML (libyaml; see
 * openapi_yaml.c for how YAML maps onto the same tree).  A document that
 * is not UTF-8 text (NUL, control bytes, malformed UTF-8) is refused before
 * parsing, naming the line, column and byte, and no byte of it is copied
 * into a message raw; a truncated JSON document says "unexpected end of
 * input"; anything after the document (trailing data, a second YAML
 * document) is an error at its line and column, and so is a NUL in any
 * string (\u0000, "\0": the tree's strings would end there, so two paths
 * "/a\u0000x" and "/a\u0000y" would both read "/a"), and a key given twice
 * in one mapping or object, YAML or JSON alike (naming both lines).
 *
 * Budgets: a document over RB_OPENAPI_MAX_BYTES is refused before it is
 * read, one over RB_OPENAPI_MAX_NODES nodes (values, keys' members and
 * what aliases copy) while it is parsed; YAML aliases and merge keys may
 * copy at most RB_OPENAPI_ALIAS_NODES nodes and RB_OPENAPI_ALIAS_BYTES bytes
 * (counted before copying).  Duplicate keys are found with hash sets, so
 * reading is linear in the document: memory is that of the tree, about 4 to
 * 10 times the document.
 *
 * Messages: where first (file:line:column, err->offset the byte), then the
 * reason, then the value it is about as an excerpt of at most 40 bytes,
 * escaped and marked "..." when cut, so a message about a hostile value
 * (a 50 MB path, a binary key) is never cut off and holds no control byte.
 *
 * Rules (what is refused is an error naming what and where):
 *   - the document is an object whose "openapi" is a string "3.x..." or
 *     whose "swagger" is "2.0" (its paths object has the same shape);
 *   - the base path (rb_openapi_options): by default the path part of
 *     servers[0].url (3.x, its {variables} replaced by their defaults; a
 *     full URL, "//host/path" or a path) or basePath (2.0), without a
 *     trailing '/'; it must be static, printable and start with '/';
 *   - "paths" is a non-empty object; each key starts with '/' and holds
 *     no whitespace or control byte (a tab, a CR, ...: the routes file
 *     could not carry it; the error names the byte offset in the path);
 *   - a key's "#fragment" or "?query" (Box writes "/files/{id}#get_shared_
 *     link" for a variant of one endpoint) is not routed: the key is routed
 *     as its path, and an operation whose (method, route) is already
 *     written, or is written later by the plain path, merges into that one
 *     route (counted, the first few named in the report);
 *   - a path item's keys: get, put, post, delete, options, head, patch,
 *     trace are operations (their values must be objects); summary,
 *     description, servers, parameters and x-* extensions are skipped
 *     (parameters, path-level or in an operation, change no route: a
 *     route's params are its template's); "query" and "additionalOperations"
 *     (OpenAPI 3.2) are skipped and counted (there is no such method here);
 *     "$ref" to a local path item ("#/components/pathItems/...") is
 *     followed, external ones refused; any other key is an error;
 *   - a segment that is exactly "{name}" stays a parameter (names that are
 *     not [A-Za-z_][A-Za-z0-9_]* are rewritten: other bytes become '_', a
 *     leading digit gets a '_' in front, a repeated name gets a suffix; the
 *     report names the first with its reason); a template inside a segment
 *     ("{Sid}.json", "{a}-{b}") stays a template segment with its params
 *     named the same way, except when two params touch ("{a}{b}": no
 *     template can tell them apart), which becomes the glob "?*" per param
 *     (one or more bytes, as a template takes) — such routes need a router
 *     with glob support; a static segment that the route syntax would read
 *     as a wildcard ('*', '?', '[' or a leading ':') is refused, and so is
 *     '*', '?' or '[' beside a template.
 * Two operations of plain paths with the same method and shape are both
 * written (and counted): `routebench corpus check` lists them; routers
 * refuse the second.
 */
#ifndef RB_CORPUS_OPENAPI_H
#define RB_CORPUS_OPENAPI_H

#include "table.h"

#define RB_OPENAPI_MAX_BYTES   ((size_t)256 << 20) /* a document's bytes */
#define RB_OPENAPI_MAX_NODES   16000000u           /* nodes of its tree, copies included */
#define RB_OPENAPI_ALIAS_NODES 1000000u            /* nodes YAML aliases and merges copy */
#define RB_OPENAPI_ALIAS_BYTES ((size_t)64 << 20)  /* ... and their bytes */
#define RB_OPENAPI_NOTES       4                   /* merges the report names */

typedef struct rb_openapi_options {
    /* NULL or "KEEP": the document's base path; "none": no base path; or a
     * path such as "/api" (a trailing '/' is dropped) */
    const char *base_path;
} rb_openapi_options;

typedef struct rb_openapi_report {
    char format[8];   /* "YAML" or "JSON" */
    char spec[8];     /* "OpenAPI" or "Swagger" */
    char version[32]; /* the document's "openapi" or "swagger" */
    char title[128];  /* info.title, "" if none */
    size_t paths, routes;
    size_t skipped; /* operations with no method here (query, additionalOperations) */
    char first_skipped[160];
    size_t renamed; /* parameter names rewritten */
    char first_renamed[200];
    size_t templates; /* segments with templates inside, written as templates */
    size_t globs;     /* segments with touching params ({a}{b}), written as globs */
    size_t refs;      /* path items taken from a $ref */
    /* the base path prefixed to every route ("" none), and where it comes
     * from: "servers[0].url", "basePath", "--base-path" or "" */
    char base_path[128];
    char base_from[24];
    size_t servers;                     /* servers with a base path (3.x) */
    size_t server_bases;                /* distinct base paths among them */
    char other_base[128];               /* the first one unlike servers[0]'s */
    size_t variants;                    /* path keys with a #fragment or ?query */
    size_t merged;                      /* operations merged into a route already written */
    char merges[RB_OPENAPI_NOTES][240]; /* the first ones: where and into what */
} rb_openapi_report;

/* Import the YAML or JSON document text[0, len) (name is used in messages) into
 * *out (initialised here; free with rb_route_table_free).  RB_EFORMAT for
 * a malformed or unsupported document, RB_EINVAL for a bad option,
 * RB_ENOMEM.  opt and rep may be NULL (the document's base path). */
int rb_openapi_import_with(const char *name, const char *text, size_t len,
                           const rb_openapi_options *opt, rb_route_table *out,
                           rb_openapi_report *rep, rb_error *err);

/* The same, reading the file at path (refused before reading when it is
 * larger than RB_OPENAPI_MAX_BYTES). */
int rb_openapi_import_file_with(const char *path, const rb_openapi_options *opt,
                                rb_route_table *out, rb_openapi_report *rep, rb_error *err);

/* The same with the default options. */
int rb_openapi_import(const char *name, const char *text, size_t len, rb_route_table *out,
                      rb_openapi_report *rep, rb_error *err);
int rb_openapi_import_file(const char *path, rb_route_table *out, rb_openapi_report *rep,
                           rb_error *err);

/* Does text[0, len) look like an OpenAPI (3) or Swagger (2) document: a
 * top-level "openapi" or "swagger" key anywhere among the top-level keys
 * (YAML: at the start of a line; JSON: in the outermost object), whatever
 * the first key is?  3, 2 or 0.  Linear in len. */
int rb_openapi_sniff(const char *text, size_t len);

/* When the file at path looks like an OpenAPI document, replace err's
 * message (a reader of another format failed on it) with the hint "PATH:
 * this looks like an OpenAPI document: use --openapi FILE (or corpus
 * import)"; returns whether it did. */
bool rb_openapi_hint(const char *path, rb_error *err);

#endif
