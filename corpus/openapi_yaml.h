/*
 * openapi_yaml.h — internal to the OpenAPI importer: a YAML document as a
 * cJSON tree (openapi_yaml.c says how YAML maps onto it), and the helpers
 * the importer's readers share.
 */
#ifndef RB_CORPUS_OPENAPI_YAML_H
#define RB_CORPUS_OPENAPI_YAML_H

#include "router.h"

#include <cjson/cJSON.h>

/* Parse the YAML text data[0, len) (name for messages) into *out (free
 * with cJSON_Delete).  RB_EFORMAT naming "name:line:column: what" for
 * malformed YAML, a duplicate key, an unknown alias, a second document,
 * too many nodes or aliases over their budget (openapi.h); RB_ENOMEM.
 * Every member of a mapping records where its key starts: see
 * rb__openapi_yaml_key_offset. */
int rb__openapi_yaml_parse(const char *name, const char *data, size_t len, cJSON **out,
                           rb_error *err);

/* The byte offset of the key of member m of a tree rb__openapi_yaml_parse
 * made (for a member an alias or a merge copied, the key it copies), or
 * SIZE_MAX when unknown. */
size_t rb__openapi_yaml_key_offset(const cJSON *m);

/* s[0, n) quoted for a message: '"', at most `max` bytes of s (never half
 * a UTF-8 character) with '"', '\\' and control bytes escaped (\t, \u0001),
 * then "...\"" when s was cut, else '"'.  buf holds at least 6 * max + 8
 * bytes; returns buf. */
char *rb__openapi_quote(const char *s, size_t n, size_t max, char *buf, size_t cap);

#endif
