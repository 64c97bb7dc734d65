/*
 * openapi.c — OpenAPI 3.0 and 3.1 documents (YAML or JSON) to a route table
 * (see openapi.h).
 */
#include "openapi.h"

#include "file.h"
#include "openapi_yaml.h"
#include "router_kit.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const operation_keys[] = {"get",     "put",  "post",  "delete",
                                             "options", "head", "patch", "trace"};
static const int operation_methods[] = {RB_GET,     RB_PUT,  RB_POST,  RB_DELETE,
                                        RB_OPTIONS, RB_HEAD, RB_PATCH, RB_TRACE};
static const char *const skipped_keys[] = {"summary", "description", "servers", "parameters"};
static const char *const unsupported_ops[] = {"query", "additionalOperations"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

typedef struct importer {
    const char *name;
    const cJSON *root;
    rb_route_table *out;
    rb_openapi_report *rep;
    rb_error *err;
} importer;

static int fail(importer *im, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int fail(importer *im, const char *fmt, ...)
{
    if (!im->err) return RB_EFORMAT;
    char detail[220];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    im->err->code = RB_EFORMAT;
    im->err->offset = RB_NO_OFFSET;
    im->err->line = 0;
    snprintf(im->err->message, sizeof im->err->message, "%s: %s", im->name, detail);
    return RB_EFORMAT;
}

static int find_key(const char *const *keys, size_t n, const char *k)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(keys[i], k) == 0) return (int)i;
    return -1;
}

/* ---- paths to patterns --------------------------------------------------------- */

static bool name_char(unsigned char c, bool first)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
           (!first && c >= '0' && c <= '9');
}

typedef struct pattern_buf {
    char text[2048];
    size_t len;
    char names[32][64];
    size_t nnames;
    bool overflow;
} pattern_buf;

static void put(pattern_buf *p, const char *s, size_t n)
{
    if (p->len + n >= sizeof p->text) {
        p->overflow = true;
        return;
    }
    memcpy(p->text + p->len, s, n);
    p->len += n;
}

/* A valid, distinct parameter name from an OpenAPI template name s[0, n):
 * other bytes become '_', a leading digit (or an empty name) gets a '_' in
 * front, a name used before in the path gets a suffix. */
static void param_name(pattern_buf *p, const char *s, size_t n, importer *im)
{
    char base[48];
    size_t w = 0;
    if (n == 0 || !name_char((unsigned char)s[0], true)) base[w++] = '_';
    for (size_t i = 0; i < n && w + 1 < sizeof base; i++)
        base[w++] = name_char((unsigned char)s[i], false) ? s[i] : '_';
    base[w] = '\0';
    char name[64];
    snprintf(name, sizeof name, "%s", base);
    for (unsigned k = 2;; k++) {
        bool clash = false;
        for (size_t i = 0; i < p->nnames; i++) clash = clash || strcmp(p->names[i], name) == 0;
        if (!clash) break;
        snprintf(name, sizeof name, "%s_%u", base, k);
    }
    if (p->nnames < 32) snprintf(p->names[p->nnames++], sizeof p->names[0], "%s", name);
    im->rep->renamed += strlen(name) != n || memcmp(name, s, n) != 0;
    put(p, "{", 1);
    put(p, name, strlen(name));
    put(p, "}", 1);
}

/* Convert one segment seg[0, n); expected kind in *kind. */
static int convert_segment(importer *im, const char *path, const char *seg, size_t n,
                           pattern_buf *p, int *kind)
{
    const char *open = memchr(seg, '{', n);
    if (!open) {
        *kind = RB_SEG_STATIC;
        if (memchr(seg, '}', n))
            return fail(im, "paths[\"%s\"]: unbalanced '}' in a segment", path);
        put(p, seg, n);
        return RB_OK;
    }
    const char *close = memchr(open, '}', n - (size_t)(open - seg));
    if (open == seg && close == seg + n - 1 && !memchr(seg + 1, '{', n - 1)) {
        *kind = RB_SEG_PARAM;
        param_name(p, seg + 1, n - 2, im);
        return RB_OK;
    }
    /* A template inside a segment ("{name}.json", "v{major}.{minor}") stays
     * a template, its params named as above.  Two params with nothing
     * between them ("{a}{b}") cannot be one (their split would be
     * arbitrary): such a segment becomes the glob "?*" per param instead,
     * one or more bytes each, as a template takes. */
    bool adjacent = false;
    for (size_t i = 0; i < n;) {
        if (seg[i] == '{') {
            const char *c = memchr(seg + i, '}', n - i);
            if (!c) return fail(im, "paths[\"%s\"]: unbalanced '{' in a segment", path);
            i = (size_t)(c - seg) + 1;
            adjacent = adjacent || (i < n && seg[i] == '{');
        } else if (seg[i] == '}') {
            return fail(im, "paths[\"%s\"]: unbalanced '}' in a segment", path);
        } else if (seg[i] == '*' || seg[i] == '?' || seg[i] == '[') {
            return fail(im,
                        "paths[\"%s\"]: '%c' beside a template cannot be written literally in a "
                        "route",
                        path, seg[i]);
        } else {
            i++;
        }
    }
    *kind = adjacent ? RB_SEG_GLOB : RB_SEG_TEMPLATE;
    if (adjacent)
        im->rep->globs++;
    else
        im->rep->templates++;
    for (size_t i = 0; i < n;) {
        if (seg[i] != '{') {
            put(p, seg + i, 1);
            i++;
            continue;
        }
        const char *c = memchr(seg + i, '}', n - i);
        if (adjacent)
            put(p, "?*", 2);
        else
            param_name(p, seg + i + 1, (size_t)(c - seg) - i - 1, im);
        i = (size_t)(c - seg) + 1;
    }
    return RB_OK;
}

/* path as a JSON string body, control bytes escaped (\t, \u0001). */
static void escaped(const char *path, char *buf, size_t cap)
{
    size_t w = 0;
    for (const char *c = path; *c && w + 8 < cap; c++) {
        unsigned char b = (unsigned char)*c;
        if (b == '\t' || b == '\r' || b == '\n')
            w += (size_t)snprintf(buf + w, cap - w, "\\%c",
                                  b == '\t'   ? 't'
                                  : b == '\r' ? 'r'
                                              : 'n');
        else if (b < 0x20 || b == 0x7f)
            w += (size_t)snprintf(buf + w, cap - w, "\\u%04x", b);
        else if (b == '"' || b == '\\')
            w += (size_t)snprintf(buf + w, cap - w, "\\%c", b);
        else
            buf[w++] = (char)b;
    }
    buf[w] = '\0';
}

/* The pattern of an OpenAPI path, checked by the shared parser. */
static int convert_path(importer *im, const char *path, pattern_buf *p)
{
    memset(p, 0, sizeof *p);
    size_t len = strlen(path);
    if (len == 0 || path[0] != '/')
        return fail(im, "paths[\"%s\"]: a path must start with '/'", path);
    /* what a routes file cannot carry is refused here, where the message
     * can name the document's path, not written and misread later */
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)path[i];
        if (c > 0x20 && c != 0x7f) continue;
        char shown[300];
        escaped(path, shown, sizeof shown);
        return fail(im,
                    "paths[\"%s\"]: byte %zu of the path is %s (0x%02x): a route pattern holds "
                    "no whitespace or control bytes (a routes file could not carry it)",
                    shown, i,
                    c == ' '    ? "a space"
                    : c == '\t' ? "a tab"
                    : c == '\r' ? "a carriage return"
                    : c == '\n' ? "a line feed"
                                : "a control byte",
                    c);
    }
    int kinds[512];
    size_t nsegs = 0;
    for (size_t at = 1;;) {
        const char *slash = memchr(path + at, '/', len - at);
        size_t end = slash ? (size_t)(slash - path) : len;
        if (nsegs == COUNT(kinds)) return fail(im, "paths[\"%s\"]: too many segments", path);
        put(p, "/", 1);
        int rc = convert_segment(im, path, path + at, end - at, p, &kinds[nsegs++]);
        if (rc < 0) return rc;
        if (!slash) break;
        at = end + 1;
    }
    if (p->overflow) return fail(im, "paths[\"%s\"]: path too long", path);
    rb_pattern pat;
    rb_error perr;
    int rc = rb_pattern_parse(p->text, p->len, NULL, &pat, &perr);
    if (rc < 0)
        return fail(im, "paths[\"%s\"]: not a valid route pattern once converted (%.*s): %s", path,
                    (int)p->len, p->text, perr.message);
    for (uint32_t i = 0; i < pat.nsegs && rc == RB_OK; i++) {
        if (pat.segs[i].kind != kinds[i])
            rc = fail(im,
                      "paths[\"%s\"]: segment %u would be read as a %s, not literally (route "
                      "syntax: ':', '*', '?' and '[' are wildcards)",
                      path, i + 1,
                      pat.segs[i].kind == RB_SEG_PARAM      ? "parameter"
                      : pat.segs[i].kind == RB_SEG_CATCHALL ? "catch-all"
                      : pat.segs[i].kind == RB_SEG_TEMPLATE ? "template"
                                                            : "glob");
    }
    rb_pattern_free(&pat);
    return rc;
}

/* ---- path items ------------------------------------------------------------------ */

/* The object a local JSON pointer ("#/a/b") names, or NULL. */
static const cJSON *resolve(const cJSON *root, const char *ref)
{
    if (ref[0] != '#') return NULL;
    const cJSON *at = root;
    const char *p = ref + 1;
    while (*p == '/' && at) {
        p++;
        char tok[256];
        size_t n = 0;
        while (*p && *p != '/' && n + 1 < sizeof tok) {
            if (p[0] == '~' && p[1] == '1') {
                tok[n++] = '/';
                p += 2;
            } else if (p[0] == '~' && p[1] == '0') {
                tok[n++] = '~';
                p += 2;
            } else {
                tok[n++] = *p++;
            }
        }
        tok[n] = '\0';
        at = cJSON_IsObject(at) ? cJSON_GetObjectItemCaseSensitive(at, tok) : NULL;
    }
    return *p == '\0' ? at : NULL;
}

static int add_operations(importer *im, const char *path, const cJSON *item, const pattern_buf *p,
                          unsigned *seen, int depth)
{
    if (!cJSON_IsObject(item))
        return fail(im, "paths[\"%s\"]: a path item must be an object", path);
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(item, "$ref");
    if (ref) {
        if (!cJSON_IsString(ref)) return fail(im, "paths[\"%s\"].$ref: must be a string", path);
        const cJSON *target = resolve(im->root, ref->valuestring);
        if (!target)
            return fail(im,
                        "paths[\"%s\"].$ref: \"%s\" is not a path item in this document "
                        "(only local references are followed)",
                        path, ref->valuestring);
        if (depth > 8) return fail(im, "paths[\"%s\"].$ref: references loop", path);
        im->rep->refs++;
        int rc = add_operations(im, path, target, p, seen, depth + 1);
        if (rc < 0) return rc;
    }
    for (const cJSON *op = item->child; op; op = op->next) {
        const char *k = op->string;
        int i = find_key(operation_keys, COUNT(operation_keys), k);
        if (i >= 0) {
            if (!cJSON_IsObject(op))
                return fail(im, "paths[\"%s\"].%s: an operation must be an object", path, k);
            int m = operation_methods[i];
            if (*seen >> m & 1u)
                return fail(im, "paths[\"%s\"].%s: the operation is defined twice", path, k);
            *seen |= 1u << m;
            if (rb_route_table_append(im->out, m, p->text, p->len, 0) < 0) return RB_ENOMEM;
            im->rep->routes++;
        } else if (find_key(unsupported_ops, COUNT(unsupported_ops), k) >= 0) {
            size_t n = cJSON_IsObject(op) && strcmp(k, "additionalOperations") == 0
                           ? (size_t)cJSON_GetArraySize(op)
                           : 1;
            if (im->rep->skipped == 0 && n)
                snprintf(im->rep->first_skipped, sizeof im->rep->first_skipped, "paths[\"%s\"].%s",
                         path, k);
            im->rep->skipped += n;
        } else if (strcmp(k, "$ref") != 0 && find_key(skipped_keys, COUNT(skipped_keys), k) < 0 &&
                   strncmp(k, "x-", 2) != 0) {
            return fail(im,
                        "paths[\"%s\"]: unknown key \"%s\" (operations are get, put, post, "
                        "delete, options, head, patch, trace)",
                        path, k);
        }
    }
    return RB_OK;
}

static int import_document(importer *im)
{
    const cJSON *root = im->root;
    if (!cJSON_IsObject(root))
        return fail(im, "the document is not a %s",
                    strcmp(im->rep->format, "YAML") == 0 ? "YAML mapping" : "JSON object");
    const cJSON *swagger = cJSON_GetObjectItemCaseSensitive(root, "swagger");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(root, "openapi");
    if (!version && swagger)
        return fail(im, "a Swagger 2.0 document: convert it to OpenAPI 3 first (e.g. with "
                        "swagger2openapi)");
    if (!version) return fail(im, "not an OpenAPI document: no \"openapi\" field");
    if (!cJSON_IsString(version) || strncmp(version->valuestring, "3.", 2) != 0)
        return fail(im, "\"openapi\": expected a version \"3.x\", found %s",
                    cJSON_IsString(version) ? version->valuestring : "a non-string");
    snprintf(im->rep->version, sizeof im->rep->version, "%s", version->valuestring);
    const cJSON *info = cJSON_GetObjectItemCaseSensitive(root, "info");
    const cJSON *title = info ? cJSON_GetObjectItemCaseSensitive(info, "title") : NULL;
    if (cJSON_IsString(title))
        snprintf(im->rep->title, sizeof im->rep->title, "%s", title->valuestring);
    const cJSON *paths = cJSON_GetObjectItemCaseSensitive(root, "paths");
    if (!paths) return fail(im, "no \"paths\" object: the document describes no routes");
    if (!cJSON_IsObject(paths)) return fail(im, "\"paths\" must be an object");
    for (const cJSON *item = paths->child; item; item = item->next) {
        if (strncmp(item->string, "x-", 2) == 0) continue;
        pattern_buf *p = malloc(sizeof *p);
        if (!p) return RB_ENOMEM;
        int rc = convert_path(im, item->string, p);
        unsigned seen = 0;
        if (rc == RB_OK) rc = add_operations(im, item->string, item, p, &seen, 0);
        free(p);
        if (rc < 0) return rc;
        im->rep->paths++;
    }
    if (im->out->count == 0) return fail(im, "\"paths\" holds no operations");
    return RB_OK;
}

/* Line and column (1-based) of byte off. */
static void locate(const char *s, size_t off, size_t *line, size_t *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (s[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

static int fail_at(const char *name, const char *s, size_t off, rb_error *err, const char *what)
{
    size_t line, col;
    locate(s, off, &line, &col);
    rb__error(err, RB_EFORMAT, off, "%s:%zu:%zu: %s", name, line, col, what);
    if (err) err->line = line;
    return RB_EFORMAT;
}

/* The offset of the first byte that has no place in a text document (NUL,
 * a control character other than tab, CR and LF, or malformed UTF-8), or
 * len. */
static size_t first_binary_byte(const unsigned char *s, size_t len)
{
    for (size_t i = 0; i < len;) {
        unsigned char c = s[i];
        size_t n = c < 0x80             ? 1
                   : (c & 0xe0) == 0xc0 ? 2
                   : (c & 0xf0) == 0xe0 ? 3
                   : (c & 0xf8) == 0xf0 ? 4
                                        : 0;
        if (c < 0x80) {
            if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) return i;
        } else if (n == 0 || c == 0xc0 || c == 0xc1 || c > 0xf4 || i + n > len) {
            return i;
        } else {
            for (size_t k = 1; k < n; k++)
                if ((s[i + k] & 0xc0) != 0x80) return i;
        }
        i += n;
    }
    return len;
}

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

/* The offset of the first \u0000 escape inside a JSON string, or len:
 * cJSON would end the string there (two paths "/a\u0000x" and
 * "/a\u0000y" would both become "/a"). */
static size_t json_escaped_nul(const char *s, size_t len)
{
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        if (!in_string) {
            in_string = s[i] == '"';
        } else if (s[i] == '"') {
            in_string = false;
        } else if (s[i] == '\\') {
            if (i + 5 < len && s[i + 1] == 'u' && memcmp(s + i + 2, "0000", 4) == 0) return i;
            i++;
        }
    }
    return len;
}

static int parse_json(const char *name, const char *json, size_t len, cJSON **root, rb_error *err)
{
    size_t nul = json_escaped_nul(json, len);
    if (nul < len)
        return fail_at(name, json, nul, err,
                       "a NUL character (\\u0000) in a string: it would cut the string short, "
                       "and no route can hold it");
    const char *end = NULL;
    *root = cJSON_ParseWithLengthOpts(json, len, &end, 0);
    if (*root) {
        size_t off = end && end >= json && end <= json + len ? (size_t)(end - json) : len;
        while (off < len && strchr(" \t\r\n", json[off])) off++;
        if (off == len) return RB_OK;
        cJSON_Delete(*root);
        *root = NULL;
        char near[128], what[200];
        excerpt(json, len, off, near, sizeof near);
        snprintf(what, sizeof what,
                 "trailing data after the JSON document (\"%s\"): give one document", near);
        return fail_at(name, json, off, err, what);
    }
    size_t off = end && end >= json && end <= json + len ? (size_t)(end - json) : 0;
    size_t rest = off;
    while (rest < len && strchr(" \t\r\n", json[rest])) rest++;
    if (rest >= len || json_unterminated(json, len))
        return fail_at(name, json, len, err,
                       "malformed JSON: unexpected end of input (a string, object or array is "
                       "not closed: is the file truncated?)");
    char near[128], what[200];
    excerpt(json, len, off, near, sizeof near);
    snprintf(what, sizeof what, "malformed JSON near \"%s\"", near);
    return fail_at(name, json, off, err, what);
}

static int import_text(const char *name, const char *text, size_t len, rb_route_table *out,
                       rb_openapi_report *rep, rb_error *err)
{
    memset(out, 0, sizeof *out);
    rb_openapi_report local;
    if (!rep) rep = &local;
    memset(rep, 0, sizeof *rep);
    size_t bad = first_binary_byte((const unsigned char *)text, len);
    if (bad < len) {
        char what[160];
        snprintf(what, sizeof what,
                 "not a text document: byte 0x%02x is not UTF-8 text (a binary file?)",
                 (unsigned char)text[bad]);
        return fail_at(name, text, bad, err, what);
    }
    size_t start = 0;
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) start = 3; /* a byte-order mark */
    while (start < len && strchr(" \t\r\n", text[start])) start++;
    cJSON *root = NULL;
    bool json = start < len && (text[start] == '{' || text[start] == '[');
    snprintf(rep->format, sizeof rep->format, "%s", json ? "JSON" : "YAML");
    int rc = json ? parse_json(name, text, len, &root, err)
                  : rb__openapi_yaml_parse(name, text, len, &root, err);
    if (rc < 0) return rc;
    importer im = {name, root, out, rep, err};
    rc = import_document(&im);
    if (rc == RB_ENOMEM) rb__error(err, rc, RB_NO_OFFSET, "out of memory importing %s", name);
    cJSON_Delete(root);
    if (rc < 0) rb_route_table_free(out);
    return rc;
}

int rb_openapi_import(const char *name, const char *text, size_t len, rb_route_table *out,
                      rb_openapi_report *rep, rb_error *err)
{
    int rc = import_text(name, text, len, out, rep, err);
    /* keys and values quoted in a message may hold tabs or escapes
     * (\u001b): no control byte reaches the terminal */
    for (char *p = rc < 0 && err ? err->message : NULL; p && *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
    return rc;
}

int rb_openapi_import_file(const char *path, rb_route_table *out, rb_openapi_report *rep,
                           rb_error *err)
{
    char *data;
    size_t len;
    memset(out, 0, sizeof *out);
    int rc = rb_file_read(path, &data, &len, err);
    if (rc < 0) return rc;
    rc = rb_openapi_import(path, data, len, out, rep, err);
    free(data);
    return rc;
}
