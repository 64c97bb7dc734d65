/*
 * openapi_json.c — a JSON document as the cJSON tree the OpenAPI importer
 * reads (openapi_internal.h): checked before parsing (a NUL escape, more
 * values than the budget), parsed by cJSON, then checked for a key given
 * twice in one object (hash sets: O(1) a key), which cJSON keeps.  Every
 * error names the line and column; a member's place in the text is found
 * again from its place in the tree (the tree keeps document order and
 * every member), for messages only.
 */
#include "openapi_internal.h"

#include "keyset.h"
#include "openapi.h"
#include "router_kit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- where a member is ------------------------------------------------------------ */

static size_t skip_blanks(const char *s, size_t len, size_t i)
{
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')) i++;
    return i;
}

/* The end of the string starting at s[i] == '"'. */
static size_t skip_string(const char *s, size_t len, size_t i)
{
    for (i++; i < len && s[i] != '"'; i++)
        if (s[i] == '\\') i++;
    return i < len ? i + 1 : len;
}

/* The end of the value starting at s[i]. */
static size_t skip_value(const char *s, size_t len, size_t i)
{
    if (i < len && s[i] == '"') return skip_string(s, len, i);
    size_t depth = 0;
    for (; i < len; i++) {
        char c = s[i];
        if (c == '"') {
            i = skip_string(s, len, i) - 1;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (depth == 0) return i;
            if (--depth == 0) return i + 1;
        } else if (depth == 0 && c == ',') {
            return i;
        }
    }
    return len;
}

size_t rb__openapi_json_member_offset(const char *s, size_t len, const size_t *idx, size_t n)
{
    size_t i = skip_blanks(s, len, 0);
    for (size_t level = 0; level < n; level++) {
        if (i >= len || (s[i] != '{' && s[i] != '[')) return SIZE_MAX;
        bool object = s[i] == '{';
        i++;
        for (size_t child = 0;; child++) {
            i = skip_blanks(s, len, i);
            size_t at = i;
            if (object) {
                if (i >= len || s[i] != '"') return SIZE_MAX;
                i = skip_blanks(s, len, skip_string(s, len, i));
                if (i >= len || s[i] != ':') return SIZE_MAX;
                i = skip_blanks(s, len, i + 1);
            }
            if (child == idx[level]) {
                if (level + 1 == n) return at;
                break; /* descend into the value at i */
            }
            i = skip_blanks(s, len, skip_value(s, len, i));
            if (i >= len || s[i] != ',') return SIZE_MAX;
            i++;
        }
    }
    return SIZE_MAX;
}

/* ---- checks before parsing ------------------------------------------------------- */

/* Up to 20 bytes at off for a message, printable ASCII only (\xNN else). */
static void excerpt(const char *s, size_t len, size_t off, char *buf, size_t cap)
{
    size_t w = 0;
    for (size_t i = off; i < len && i < off + 20 && w + 5 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n' || c == '\r' || c == '\t')
            buf[w++] = ' ';
        else if (c >= 0x20 && c < 0x7f)
            buf[w++] = (char)c;
        else
            w += (size_t)snprintf(buf + w, cap - w, "\\x%02x", c);
    }
    buf[w] = '\0';
}

/* Does the text end inside a string or an open object or array (so a
 * parser error is really the end of a truncated file)? */
static bool json_unterminated(const char *s, size_t len)
{
    size_t depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if ((c == '}' || c == ']') && depth) {
            depth--;
        }
    }
    return in_string || depth > 0;
}

/* One pass over JSON text before parsing: the offset of the first \u0000
 * escape inside a string (cJSON would end the string there: two paths
 * "/a\u0000x" and "/a\u0000y" would both become "/a"), or len; and an
 * upper bound of the values (',', ':' and openings outside strings, + 1). */
static size_t json_prescan(const char *s, size_t len, size_t *values)
{
    bool in_string = false;
    size_t n = 1;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!in_string) {
            in_string = c == '"';
            n += c == ',' || c == '[' || c == '{';
        } else if (c == '"') {
            in_string = false;
        } else if (c == '\\') {
            if (i + 5 < len && s[i + 1] == 'u' && memcmp(s + i + 2, "0000", 4) == 0) return i;
            i++;
        }
    }
    *values = n;
    return len;
}

/* ---- JSON duplicate keys ---------------------------------------------------------- */

typedef struct dup_walk {
    const char *name, *text;
    size_t len;
    rb_error *err;
    size_t idx[CJSON_NESTING_LIMIT + 2];
} dup_walk;

static bool same_key(const void *key, uintptr_t member)
{
    return strcmp(((const cJSON *)member)->string, key) == 0;
}

static size_t child_index(const cJSON *parent, const cJSON *child)
{
    size_t i = 0;
    for (const cJSON *c = parent->child; c != child; c = c->next) i++;
    return i;
}

/* Refuse a key given twice in one object of n's subtree (depth: n's place
 * in d->idx), as the YAML reader does: O(1) a key. */
static int json_unique_keys(dup_walk *d, const cJSON *n, size_t depth)
{
    if (depth > CJSON_NESTING_LIMIT) return RB_OK;
    size_t i = 0;
    rb_keyset set = {0};
    int rc = RB_OK;
    for (const cJSON *c = n->child; c && rc == RB_OK; c = c->next, i++) {
        d->idx[depth] = i;
        if (cJSON_IsObject(n) && n->child->next) {
            uint64_t h = rb__keyset_hash(c->string, strlen(c->string));
            uintptr_t *first = rb__keyset_find(&set, h, same_key, c->string);
            if (first) {
                size_t at = rb__openapi_json_member_offset(d->text, d->len, d->idx, depth + 1);
                d->idx[depth] = child_index(n, (const cJSON *)*first);
                size_t before = rb__openapi_json_member_offset(d->text, d->len, d->idx, depth + 1),
                       line, col;
                rb__openapi_locate(d->text, before == SIZE_MAX ? 0 : before, &line, &col);
                char what[200], shown[100];
                snprintf(what, sizeof what,
                         "the key %s is given twice in one object (first at line %zu)",
                         rb__openapi_quote(c->string, strlen(c->string), RB_OPENAPI_EXCERPT, shown,
                                           sizeof shown),
                         line);
                rc = rb__openapi_fail_at(d->name, d->text, at == SIZE_MAX ? 0 : at, d->err, what);
                break;
            }
            if (rb__keyset_add(&set, h, (uintptr_t)c) < 0) {
                rc = RB_ENOMEM;
                break;
            }
        }
        if (c->child) rc = json_unique_keys(d, c, depth + 1);
    }
    rb__keyset_free(&set);
    return rc;
}

int rb__openapi_json_parse(const char *name, const char *json, size_t len, cJSON **root,
                           rb_error *err)
{
    size_t values = 0;
    size_t nul = json_prescan(json, len, &values);
    if (nul < len)
        return rb__openapi_fail_at(
            name, json, nul, err,
            "a NUL character (\\u0000) in a string: it would cut the string short, "
            "and no route can hold it");
    if (values > RB_OPENAPI_MAX_NODES) {
        char what[160];
        snprintf(what, sizeof what, "the document is too large: over %u values (the budget)",
                 (unsigned)RB_OPENAPI_MAX_NODES);
        return rb__openapi_fail_at(name, json, 0, err, what);
    }
    const char *end = NULL;
    *root = cJSON_ParseWithLengthOpts(json, len, &end, 0);
    if (*root) {
        size_t off = end && end >= json && end <= json + len ? (size_t)(end - json) : len;
        while (off < len && strchr(" \t\r\n", json[off])) off++;
        if (off == len) {
            dup_walk *d = malloc(sizeof *d);
            if (!d) return RB_ENOMEM;
            *d = (dup_walk){name, json, len, err, {0}};
            int rc = json_unique_keys(d, *root, 0);
            free(d);
            if (rc == RB_OK) return RB_OK;
            cJSON_Delete(*root);
            *root = NULL;
            return rc;
        }
        cJSON_Delete(*root);
        *root = NULL;
        char near[128], what[200];
        excerpt(json, len, off, near, sizeof near);
        snprintf(what, sizeof what,
                 "trailing data after the JSON document (\"%s\"): give one document", near);
        return rb__openapi_fail_at(name, json, off, err, what);
    }
    size_t off = end && end >= json && end <= json + len ? (size_t)(end - json) : 0;
    size_t rest = off;
    while (rest < len && strchr(" \t\r\n", json[rest])) rest++;
    if (rest >= len || json_unterminated(json, len))
        return rb__openapi_fail_at(
            name, json, len, err,
            "malformed JSON: unexpected end of input (a string, object or array is "
            "not closed: is the file truncated?)");
    char near[128], what[200];
    excerpt(json, len, off, near, sizeof near);
    snprintf(what, sizeof what, "malformed JSON near \"%s\"", near);
    return rb__openapi_fail_at(name, json, off, err, what);
}
