/*
 * openapi_internal.h — internal to the OpenAPI importer (openapi.h): the
 * two readers that make a YAML or JSON document a cJSON tree, and what
 * they share about text and messages.
 */
#ifndef RB_CORPUS_OPENAPI_INTERNAL_H
#define RB_CORPUS_OPENAPI_INTERNAL_H

#include "router.h"

#include <cjson/cJSON.h>

#define RB_OPENAPI_EXCERPT 40 /* bytes of a value quoted in a message */

/* ---- openapi_yaml.c ---- */

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

/* ---- openapi_json.c ---- */

/* Parse the JSON text json[0, len) into *root (free with cJSON_Delete).
 * RB_EFORMAT naming "name:line:column: what" for malformed JSON, trailing
 * data, a \u0000 escape, more values than RB_OPENAPI_MAX_NODES or a key
 * given twice in one object; RB_ENOMEM. */
int rb__openapi_json_parse(const char *name, const char *json, size_t len, cJSON **root,
                           rb_error *err);

/* The offset in the JSON text s[0, len) of the member reached by the child
 * indices idx[0, n) (document order) from the root: its key's '"' in an
 * object, the value in an array; SIZE_MAX when the text does not hold it.
 * O(len): for messages only. */
size_t rb__openapi_json_member_offset(const char *s, size_t len, const size_t *idx, size_t n);

/* ---- openapi_text.c ---- */

/* s[0, n) quoted for a message: '"', at most `max` bytes of s (never half
 * a UTF-8 character) with '"', '\\' and control bytes escaped (\t, \u0001),
 * then "...\"" when s was cut, else '"'; never more than cap bytes (cap at
 * least 8).  Returns buf. */
char *rb__openapi_quote(const char *s, size_t n, size_t max, char *buf, size_t cap);

/* The length of the UTF-8 character starting with c, 0 for a byte that
 * cannot start one. */
size_t rb__openapi_utf8_length(unsigned char c);

/* Line and column (1-based) of byte off of s. */
void rb__openapi_locate(const char *s, size_t off, size_t *line, size_t *col);

/* A file name for a message: its last 60 bytes at most. */
const char *rb__openapi_short_name(const char *name);

/* RB_EFORMAT, err filled with "name:line:column: what" for byte off of s. */
int rb__openapi_fail_at(const char *name, const char *s, size_t off, rb_error *err,
                        const char *what);

/* The offset of the first byte that has no place in a text document (NUL,
 * a control character other than tab, CR and LF, or malformed UTF-8), or
 * len. */
size_t rb__openapi_first_binary_byte(const unsigned char *s, size_t len);

#endif
