/*
 * openapi.h — route tables from OpenAPI 3.0 and 3.1 documents, YAML or JSON.
 *
 * Every operation of the document becomes one route "METHOD PATH", paths
 * in document order and, within a path, operations in document order, so
 * users can benchmark routers on their own API:
 *
 *     "paths": { "/users/{id}": { "get": {...}, "delete": {...} } }
 *  -> GET /users/{id}
 *     DELETE /users/{id}
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
 * "/a\u0000x" and "/a\u0000y" would both read "/a").
 *
 * Rules (what is refused is an error naming what and where, as a JSON path
 * like paths["/users/{id}"].fetch, or line:column for malformed YAML or
 * JSON):
 *   - the document is an object whose "openapi" is a string "3.x..."
 *     ("swagger": "2.0" documents are refused: convert them first);
 *   - "paths" is a non-empty object; each key starts with '/' and holds
 *     no whitespace or control byte (a tab, a CR, ...: the routes file
 *     could not carry it; the error names the path and the byte offset);
 *   - a path item's keys: get, put, post, delete, options, head, patch,
 *     trace are operations (their values must be objects); summary,
 *     description, servers, parameters and x-* extensions are skipped;
 *     "query" and "additionalOperations" (OpenAPI 3.2) are skipped and
 *     counted (there is no such method here); "$ref" to a local path item
 *     ("#/components/pathItems/...") is followed, external ones refused;
 *     any other key is an error;
 *   - a segment that is exactly "{name}" stays a parameter (names that are
 *     not [A-Za-z_][A-Za-z0-9_]* are rewritten: other bytes become '_', a
 *     leading digit gets a '_' in front, a repeated name gets a suffix); a
 *     template inside a segment ("{Sid}.json", "{a}-{b}") stays a template
 *     segment with its params named the same way, except when two params
 *     touch ("{a}{b}": no template can tell them apart), which becomes the
 *     glob "?*" per param (one or more bytes, as a template takes) — such
 *     routes need a router with glob support; a static segment that the
 *     route syntax would read as a wildcard ('*', '?', '[' or a leading
 *     ':') is refused, and so is '*', '?' or '[' beside a template.
 * Two operations with the same method and shape are both written (and
 * counted): `routebench corpus check` lists them; routers refuse the second.
 */
#ifndef RB_CORPUS_OPENAPI_H
#define RB_CORPUS_OPENAPI_H

#include "table.h"

typedef struct rb_openapi_report {
    char format[8];   /* "YAML" or "JSON" */
    char version[32]; /* the document's "openapi" */
    char title[128];  /* info.title, "" if none */
    size_t paths, routes;
    size_t skipped; /* operations with no method here (query, additionalOperations) */
    char first_skipped[160];
    size_t renamed;   /* parameter names rewritten */
    size_t templates; /* segments with templates inside, written as templates */
    size_t globs;     /* segments with touching params ({a}{b}), written as globs */
    size_t refs;      /* path items taken from a $ref */
} rb_openapi_report;

/* Import the YAML or JSON document text[0, len) (name is used in messages) into
 * *out (initialised here; free with rb_route_table_free).  RB_EFORMAT for
 * a malformed or unsupported document, RB_ENOMEM.  rep may be NULL. */
int rb_openapi_import(const char *name, const char *text, size_t len, rb_route_table *out,
                      rb_openapi_report *rep, rb_error *err);

/* The same, reading the file at path. */
int rb_openapi_import_file(const char *path, rb_route_table *out, rb_openapi_report *rep,
                           rb_error *err);

#endif
