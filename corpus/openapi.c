/*
 * openapi.c — OpenAPI 3.x and Swagger 2.0 documents (YAML or JSON) to a
 * route table (see openapi.h).
 */
#include "openapi.h"

#include "file.h"
#include "keyset.h"
#include "openapi_internal.h"
#include "router_kit.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const operation_keys[] = {"get",     "put",  "post",  "delete",
                                             "options", "head", "patch", "trace"};
static const int operation_methods[] = {RB_GET,     RB_PUT,  RB_POST,  RB_DELETE,
                                        RB_OPTIONS, RB_HEAD, RB_PATCH, RB_TRACE};
static const char *const skipped_keys[] = {"summary", "description", "servers", "parameters"};
static const char *const unsupported_ops[] = {"query", "additionalOperations"};

#define COUNT(a)       (sizeof(a) / sizeof((a)[0]))
#define MAX_SEGMENTS   512
#define NAME_MAX_BYTES 255 /* a parameter name is cut there */

/* ---- the importer ------------------------------------------------------------------- */

typedef struct importer {
    const char *name, *text;
    size_t len;
    bool json, swagger;
    const cJSON *root;
    const rb_openapi_options *opt;
    rb_route_table *out;
    rb_openapi_report *rep;
    rb_error *err;
    /* the path item being read, for messages */
    size_t paths_index;
    const cJSON *item;
    size_t item_index;
    char base[128];
    size_t base_len;
    rb_keyset routes; /* routes written: index * 2 + 1 when from a #fragment or ?query key */
} importer;

/* The byte offset of the current path item's key, or SIZE_MAX. */
static size_t item_offset(const importer *im)
{
    if (!im->item) return SIZE_MAX;
    if (!im->json) return rb__openapi_yaml_key_offset(im->item);
    size_t idx[2] = {im->paths_index, im->item_index};
    return rb__openapi_json_member_offset(im->text, im->len, idx, 2);
}

static int fail(importer *im, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* "NAME:LINE:COLUMN: reason, in paths["excerpt of the key"]": where and why
 * first, the value last and abbreviated, so nothing is cut off. */
static int fail(importer *im, const char *fmt, ...)
{
    if (!im->err) return RB_EFORMAT;
    char reason[sizeof im->err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    size_t off = item_offset(im), line = 0, col = 0;
    char where[48] = "";
    if (off != SIZE_MAX) {
        rb__openapi_locate(im->text, off, &line, &col);
        snprintf(where, sizeof where, ":%zu:%zu", line, col);
    }
    rb_error *e = im->err;
    e->code = RB_EFORMAT;
    e->offset = off == SIZE_MAX ? RB_NO_OFFSET : off;
    e->line = line;
    int w = snprintf(e->message, sizeof e->message, "%s%s: %s", rb__openapi_short_name(im->name),
                     where, reason);
    size_t used = w < 0 ? 0 : (size_t)w;
    const char *key = im->item ? im->item->string : NULL;
    if (key && used + 24 < sizeof e->message) {
        char shown[sizeof e->message];
        size_t room = sizeof e->message - used - 12;
        size_t n = strlen(key);
        rb__openapi_quote(key, n, RB_OPENAPI_EXCERPT, shown, room);
        snprintf(e->message + used, sizeof e->message - used, ", in paths[%s]", shown);
    }
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
    char names[32][NAME_MAX_BYTES + 16];
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

/* Why the template name s[0, n) is not a name as it is, into buf. */
static void rename_reason(const char *s, size_t n, bool clash, char *buf, size_t cap)
{
    if (n == 0) {
        snprintf(buf, cap, "an empty name");
        return;
    }
    if (!name_char((unsigned char)s[0], true) && s[0] >= '0' && s[0] <= '9') {
        snprintf(buf, cap, "a name cannot start with a digit");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (name_char(c, i > 0)) continue;
        if (c > 0x20 && c < 0x7f)
            snprintf(buf, cap, "'%c' is not a name byte (A-Z, a-z, 0-9, _)", c);
        else
            snprintf(buf, cap, "byte 0x%02x is not a name byte (A-Z, a-z, 0-9, _)", c);
        return;
    }
    snprintf(buf, cap, "%s",
             clash ? "the name is used twice in the path" : "names are cut at 255 bytes");
}

/* A valid, distinct parameter name from an OpenAPI template name s[0, n):
 * other bytes become '_', a leading digit (or an empty name) gets a '_' in
 * front, a name used before in the path gets a suffix. */
static void param_name(pattern_buf *p, const char *s, size_t n, importer *im)
{
    char base[NAME_MAX_BYTES + 1];
    size_t w = 0;
    if (n == 0 || !name_char((unsigned char)s[0], true)) base[w++] = '_';
    for (size_t i = 0; i < n && w + 1 < sizeof base; i++)
        base[w++] = name_char((unsigned char)s[i], false) ? s[i] : '_';
    base[w] = '\0';
    char name[NAME_MAX_BYTES + 16];
    snprintf(name, sizeof name, "%s", base);
    bool clashed = false;
    for (unsigned k = 2;; k++) {
        bool clash = false;
        for (size_t i = 0; i < p->nnames; i++) clash = clash || strcmp(p->names[i], name) == 0;
        if (!clash) break;
        clashed = true;
        snprintf(name, sizeof name, "%s_%u", base, k);
    }
    if (p->nnames < 32) snprintf(p->names[p->nnames++], sizeof p->names[0], "%s", name);
    if (strlen(name) != n || memcmp(name, s, n) != 0) {
        rb_openapi_report *rep = im->rep;
        if (rep->renamed++ == 0) {
            char key[100], was[100], why[80];
            const char *k = im->item ? im->item->string : "";
            rename_reason(s, n, clashed, why, sizeof why);
            rb__openapi_quote(s, n, 24, was, sizeof was);
            snprintf(rep->first_renamed, sizeof rep->first_renamed,
                     "paths[%s]: {%.*s} written {%s}: %s",
                     rb__openapi_quote(k, strlen(k), RB_OPENAPI_EXCERPT, key, sizeof key),
                     (int)(strlen(was) - 2), was + 1, name, why);
        }
    }
    put(p, "{", 1);
    put(p, name, strlen(name));
    put(p, "}", 1);
}

/* Convert one segment seg[0, n); expected kind in *kind. */
static int convert_segment(importer *im, const char *seg, size_t n, pattern_buf *p, int *kind)
{
    const char *open = memchr(seg, '{', n);
    if (!open) {
        *kind = RB_SEG_STATIC;
        if (memchr(seg, '}', n)) return fail(im, "unbalanced '}' in a segment");
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
            if (!c) return fail(im, "unbalanced '{' in a segment");
            i = (size_t)(c - seg) + 1;
            adjacent = adjacent || (i < n && seg[i] == '{');
        } else if (seg[i] == '}') {
            return fail(im, "unbalanced '}' in a segment");
        } else if (seg[i] == '*' || seg[i] == '?' || seg[i] == '[') {
            return fail(im, "'%c' beside a template cannot be written literally in a route",
                        seg[i]);
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

static const char *byte_name(unsigned char c)
{
    return c == ' '    ? "a space"
           : c == '\t' ? "a tab"
           : c == '\r' ? "a carriage return"
           : c == '\n' ? "a line feed"
                       : "a control byte";
}

/* The offset of the first byte of s[0, n) a route pattern cannot hold
 * (whitespace, a control byte), or n. */
static size_t first_unprintable(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= 0x20 || s[i] == 0x7f) return i;
    return n;
}

/* The pattern of the OpenAPI path (the key up to a '#' or '?') path[0,
 * len) under the base path, checked by the shared parser. */
static int convert_path(importer *im, const char *path, size_t len, pattern_buf *p)
{
    p->len = 0;
    p->nnames = 0;
    p->overflow = false;
    if (len == 0 || path[0] != '/') return fail(im, "a path must start with '/'");
    /* what a routes file cannot carry is refused here, where the message
     * can name the document's path, not written and misread later */
    size_t bad = first_unprintable(path, len);
    if (bad < len)
        return fail(im,
                    "byte %zu of the %zu-byte path is %s (0x%02x): a route pattern holds no "
                    "whitespace or control byte (a routes file could not carry it)",
                    bad, len, byte_name((unsigned char)path[bad]), (unsigned char)path[bad]);
    put(p, im->base, im->base_len);
    int kinds[MAX_SEGMENTS];
    size_t nsegs = 0;
    for (size_t i = 1; i < im->base_len; i++) nsegs += im->base[i] == '/';
    nsegs += im->base_len > 0;
    for (size_t k = 0; k < nsegs; k++) kinds[k] = RB_SEG_STATIC;
    for (size_t at = 1;;) {
        const char *slash = memchr(path + at, '/', len - at);
        size_t end = slash ? (size_t)(slash - path) : len;
        if (nsegs == COUNT(kinds))
            return fail(im, "the path has over %d segments", MAX_SEGMENTS - 1);
        put(p, "/", 1);
        int rc = convert_segment(im, path + at, end - at, p, &kinds[nsegs++]);
        if (rc < 0) return rc;
        if (!slash || p->overflow) break;
        at = end + 1;
    }
    if (p->overflow)
        return fail(im, "the path is too long: %zu bytes, a pattern holds at most %zu", len,
                    sizeof p->text - 1 - im->base_len);
    rb_pattern pat;
    rb_error perr;
    int rc = rb_pattern_parse(p->text, p->len, NULL, &pat, &perr);
    if (rc < 0) return fail(im, "not a valid route pattern once converted: %s", perr.message);
    for (uint32_t i = 0; i < pat.nsegs && rc == RB_OK; i++) {
        if (pat.segs[i].kind != kinds[i])
            rc = fail(im,
                      "segment %u would be read as a %s, not literally (route syntax: ':', '*', "
                      "'?' and '[' are wildcards)",
                      i + 1,
                      pat.segs[i].kind == RB_SEG_PARAM      ? "parameter"
                      : pat.segs[i].kind == RB_SEG_CATCHALL ? "catch-all"
                      : pat.segs[i].kind == RB_SEG_TEMPLATE ? "template"
                                                            : "glob");
    }
    rb_pattern_free(&pat);
    return rc;
}

/* ---- routes, merged by (method, pattern) for variants ---------------------------- */

typedef struct route_key {
    const rb_route_table *t;
    int method;
    const char *pattern;
    size_t len;
} route_key;

static bool same_route(const void *ctx, uintptr_t v)
{
    const route_key *k = ctx;
    const rb_route_entry *e = &k->t->routes[v / 2];
    return e->method == k->method && e->len == k->len &&
           memcmp(rb_route_pattern(k->t, v / 2), k->pattern, k->len) == 0;
}

/* Write METHOD pattern, or merge it into the same route already written
 * when either comes from a #fragment or ?query key (variant). */
static int add_route(importer *im, int method, const char *op, const pattern_buf *p, bool variant)
{
    route_key k = {im->out, method, p->text, p->len};
    uint64_t h = rb__keyset_hash(p->text, p->len) ^ (uint64_t)(method + 1) * 0x9e3779b97f4a7c15u;
    uintptr_t *slot = rb__keyset_find(&im->routes, h, same_route, &k);
    if (slot && (variant || (*slot & 1))) {
        rb_openapi_report *rep = im->rep;
        if (rep->merged < RB_OPENAPI_NOTES) {
            char key[120];
            const char *s = im->item->string;
            snprintf(rep->merges[rep->merged], sizeof rep->merges[0], "paths[%s].%s -> %s %.*s%s",
                     rb__openapi_quote(s, strlen(s), 2 * RB_OPENAPI_EXCERPT, key, sizeof key), op,
                     rb_method_name(method), (int)(p->len > 60 ? 57 : p->len), p->text,
                     p->len > 60 ? "..." : "");
        }
        rep->merged++;
        if (!variant) *slot &= ~(uintptr_t)1; /* the plain path's operation is written now */
        return RB_OK;
    }
    if (rb_route_table_append(im->out, method, p->text, p->len, 0) < 0) return RB_ENOMEM;
    if (rb__keyset_add(&im->routes, h, (uintptr_t)(im->out->count - 1) * 2 + variant) < 0)
        return RB_ENOMEM;
    im->rep->routes++;
    return RB_OK;
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

static int add_operations(importer *im, const cJSON *item, const pattern_buf *p, bool variant,
                          unsigned *seen, int depth)
{
    char shown[100];
    if (!cJSON_IsObject(item)) return fail(im, "a path item must be an object");
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(item, "$ref");
    if (ref) {
        if (!cJSON_IsString(ref)) return fail(im, "$ref must be a string");
        const cJSON *target = resolve(im->root, ref->valuestring);
        if (!target)
            return fail(im,
                        "$ref %s is not a path item in this document (only local references "
                        "are followed)",
                        rb__openapi_quote(ref->valuestring, strlen(ref->valuestring),
                                          RB_OPENAPI_EXCERPT, shown, sizeof shown));
        if (depth > 8) return fail(im, "$ref: references loop");
        im->rep->refs++;
        int rc = add_operations(im, target, p, variant, seen, depth + 1);
        if (rc < 0) return rc;
    }
    for (const cJSON *op = item->child; op; op = op->next) {
        const char *k = op->string;
        int i = find_key(operation_keys, COUNT(operation_keys), k);
        if (i >= 0) {
            if (!cJSON_IsObject(op)) return fail(im, "the operation %s must be an object", k);
            int m = operation_methods[i];
            if (*seen >> m & 1u) return fail(im, "the operation %s is defined twice", k);
            *seen |= 1u << m;
            int rc = add_route(im, m, k, p, variant);
            if (rc < 0) return rc;
        } else if (find_key(unsupported_ops, COUNT(unsupported_ops), k) >= 0) {
            size_t n = cJSON_IsObject(op) && strcmp(k, "additionalOperations") == 0
                           ? (size_t)cJSON_GetArraySize(op)
                           : 1;
            if (im->rep->skipped == 0 && n) {
                const char *s = im->item->string;
                snprintf(im->rep->first_skipped, sizeof im->rep->first_skipped, "paths[%s].%s",
                         rb__openapi_quote(s, strlen(s), RB_OPENAPI_EXCERPT, shown, sizeof shown),
                         k);
            }
            im->rep->skipped += n;
        } else if (strcmp(k, "$ref") != 0 && find_key(skipped_keys, COUNT(skipped_keys), k) < 0 &&
                   strncmp(k, "x-", 2) != 0) {
            return fail(im,
                        "unknown key %s in a path item (operations are get, put, post, delete, "
                        "options, head, patch, trace)",
                        rb__openapi_quote(k, strlen(k), RB_OPENAPI_EXCERPT, shown, sizeof shown));
        }
    }
    return RB_OK;
}

/* ---- the base path ----------------------------------------------------------------- */

/* url with its {variables} replaced by their defaults (vars: the server's
 * "variables"), into buf; false when one has no default (its name in
 * *missing). */
static bool substitute(const char *url, const cJSON *vars, char *buf, size_t cap,
                       const char **missing)
{
    size_t w = 0;
    for (const char *c = url; *c && w + 1 < cap;) {
        const char *close = *c == '{' ? strchr(c, '}') : NULL;
        if (!close) {
            buf[w++] = *c++;
            continue;
        }
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(close - c - 1), c + 1);
        const cJSON *v = cJSON_IsObject(vars) ? cJSON_GetObjectItemCaseSensitive(vars, name) : NULL;
        const cJSON *d = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, "default") : NULL;
        if (!cJSON_IsString(d)) {
            *missing = c;
            return false;
        }
        w += (size_t)snprintf(buf + w, cap - w, "%s", d->valuestring);
        if (w >= cap) w = cap - 1;
        c = close + 1;
    }
    buf[w] = '\0';
    return true;
}

/* The path part of a server URL (a full URL, "//host/path" or a path),
 * without query, fragment and trailing '/', into buf ("" for none). */
static void url_path(const char *url, char *buf, size_t cap)
{
    const char *p = url, *scheme = strstr(url, "://");
    if (scheme && (size_t)(scheme - url) < strcspn(url, "/?#")) {
        p = scheme + 3;
        p += strcspn(p, "/?#");
    } else if (p[0] == '/' && p[1] == '/') {
        p += 2;
        p += strcspn(p, "/?#");
    }
    size_t n = strcspn(p, "?#");
    while (n > 0 && p[n - 1] == '/') n--;
    if (n == 0) {
        buf[0] = '\0';
        return;
    }
    snprintf(buf, cap, "%s%.*s", p[0] == '/' ? "" : "/", (int)n, p);
}

/* The base path of servers[i] into buf; false when it cannot be known. */
static bool server_base(const cJSON *server, char *buf, size_t cap, const char **missing)
{
    const cJSON *url =
        cJSON_IsObject(server) ? cJSON_GetObjectItemCaseSensitive(server, "url") : NULL;
    if (!cJSON_IsString(url)) return false;
    char full[512];
    if (!substitute(url->valuestring, cJSON_GetObjectItemCaseSensitive(server, "variables"), full,
                    sizeof full, missing))
        return false;
    url_path(full, buf, cap);
    return true;
}

/* A base path must be printable static segments: checked here, where the
 * message can say where it comes from. */
static int check_base(importer *im, const char *from)
{
    const char *b = im->base;
    char shown[100];
    for (size_t i = 0; i < im->base_len; i++) {
        unsigned char c = (unsigned char)b[i];
        bool wild = c == '*' || c == '?' || c == '[' || c == '{' || c == '}' ||
                    (c == ':' && i > 0 && b[i - 1] == '/');
        if (c > 0x20 && c != 0x7f && c != '#' && !wild) continue;
        return fail(im,
                    "byte %zu of the base path (from %s) is %s: a base path is static words "
                    "(choose one with --base-path /PATH or none): %s",
                    i, from,
                    wild       ? "a wildcard or template byte"
                    : c == '#' ? "'#' (a routes file reads the rest of a line as a comment)"
                               : byte_name(c),
                    rb__openapi_quote(b, im->base_len, RB_OPENAPI_EXCERPT, shown, sizeof shown));
    }
    if (im->base_len && b[0] != '/')
        return fail(im, "the base path %s (from %s) must start with '/'",
                    rb__openapi_quote(b, im->base_len, RB_OPENAPI_EXCERPT, shown, sizeof shown),
                    from);
    if (im->base_len >= sizeof im->base - 1)
        return fail(im, "the base path (from %s) is too long", from);
    return RB_OK;
}

static void set_base(importer *im, const char *path, const char *from)
{
    size_t n = strlen(path);
    while (n > 0 && path[n - 1] == '/') n--;
    if (n >= sizeof im->base) n = sizeof im->base - 1;
    memcpy(im->base, path, n);
    im->base[n] = '\0';
    im->base_len = n;
    snprintf(im->rep->base_path, sizeof im->rep->base_path, "%s", im->base);
    snprintf(im->rep->base_from, sizeof im->rep->base_from, "%s", n ? from : "");
}

static int choose_base(importer *im)
{
    const char *want = im->opt ? im->opt->base_path : NULL;
    if (want && strcmp(want, "KEEP") != 0) {
        if (strcmp(want, "none") == 0) {
            set_base(im, "", "");
        } else if (want[0] == '/') {
            set_base(im, want, "--base-path");
        } else {
            return rb__error(im->err, RB_EINVAL, RB_NO_OFFSET,
                             "--base-path must be KEEP, none or a path starting with '/'");
        }
        return check_base(im, "--base-path");
    }
    if (im->swagger) {
        const cJSON *bp = cJSON_GetObjectItemCaseSensitive(im->root, "basePath");
        if (bp && !cJSON_IsString(bp)) return fail(im, "\"basePath\" must be a string");
        set_base(im, bp ? bp->valuestring : "", "basePath");
        return check_base(im, "basePath");
    }
    const cJSON *servers = cJSON_GetObjectItemCaseSensitive(im->root, "servers");
    if (!cJSON_IsArray(servers) || !servers->child) {
        set_base(im, "", "");
        return RB_OK;
    }
    char first[128] = "", other[128];
    const char *missing = NULL;
    if (!server_base(servers->child, first, sizeof first, &missing)) {
        char shown[100];
        if (missing)
            return fail(im,
                        "servers[0].url: the variable %s has no default (choose the base path "
                        "with --base-path /PATH or none)",
                        rb__openapi_quote(missing, strcspn(missing, "}") + 1, RB_OPENAPI_EXCERPT,
                                          shown, sizeof shown));
        return fail(im, "servers[0].url must be a string");
    }
    set_base(im, first, "servers[0].url");
    im->rep->servers = 1;
    im->rep->server_bases = 1;
    for (const cJSON *s = servers->child->next; s; s = s->next) {
        missing = NULL;
        if (!server_base(s, other, sizeof other, &missing)) continue;
        im->rep->servers++;
        if (strcmp(other, first) == 0) continue;
        bool seen = false;
        for (const cJSON *t = servers->child->next; t != s && !seen; t = t->next) {
            char earlier[128];
            seen = server_base(t, earlier, sizeof earlier, &missing) && strcmp(earlier, other) == 0;
        }
        if (seen) continue;
        if (im->rep->server_bases++ == 1)
            snprintf(im->rep->other_base, sizeof im->rep->other_base, "%s", other[0] ? other : "/");
    }
    return check_base(im, "servers[0].url");
}

/* ---- the document ------------------------------------------------------------------ */

static int check_version(importer *im)
{
    const cJSON *root = im->root;
    if (!cJSON_IsObject(root))
        return fail(im, "the document is not a %s", im->json ? "JSON object" : "YAML mapping");
    const cJSON *swagger = cJSON_GetObjectItemCaseSensitive(root, "swagger");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(root, "openapi");
    char shown[100];
    if (version) {
        if (!cJSON_IsString(version) || strncmp(version->valuestring, "3.", 2) != 0)
            return fail(im, "\"openapi\": expected a version \"3.x\", found %s",
                        cJSON_IsString(version)
                            ? rb__openapi_quote(version->valuestring, strlen(version->valuestring),
                                                RB_OPENAPI_EXCERPT, shown, sizeof shown)
                            : "a non-string");
    } else if (swagger) {
        if (!cJSON_IsString(swagger) || strncmp(swagger->valuestring, "2.", 2) != 0)
            return fail(im, "\"swagger\": expected a version \"2.0\", found %s",
                        cJSON_IsString(swagger)
                            ? rb__openapi_quote(swagger->valuestring, strlen(swagger->valuestring),
                                                RB_OPENAPI_EXCERPT, shown, sizeof shown)
                            : "a non-string");
        version = swagger;
        im->swagger = true;
    } else {
        return fail(im, "not an OpenAPI document: no \"openapi\" (3.x) or \"swagger\" (2.0) "
                        "field");
    }
    snprintf(im->rep->spec, sizeof im->rep->spec, "%s", im->swagger ? "Swagger" : "OpenAPI");
    snprintf(im->rep->version, sizeof im->rep->version, "%s", version->valuestring);
    return RB_OK;
}

static int import_paths(importer *im, const cJSON *paths)
{
    pattern_buf *p = malloc(sizeof *p);
    if (!p) return RB_ENOMEM;
    size_t index = 0;
    int rc = RB_OK;
    for (const cJSON *item = paths->child; item && rc == RB_OK; item = item->next, index++) {
        if (strncmp(item->string, "x-", 2) == 0) continue;
        im->item = item;
        im->item_index = index;
        const char *key = item->string;
        size_t len = strlen(key), cut = strcspn(key, "#?");
        bool variant = cut < len;
        im->rep->variants += variant;
        rc = convert_path(im, key, cut, p);
        unsigned seen = 0;
        if (rc == RB_OK) rc = add_operations(im, item, p, variant, &seen, 0);
        if (rc == RB_OK) im->rep->paths++;
    }
    free(p);
    if (rc == RB_OK) im->item = NULL;
    return rc;
}

static int import_document(importer *im)
{
    int rc = check_version(im);
    if (rc < 0) return rc;
    const cJSON *root = im->root;
    const cJSON *info = cJSON_GetObjectItemCaseSensitive(root, "info");
    const cJSON *title = info ? cJSON_GetObjectItemCaseSensitive(info, "title") : NULL;
    if (cJSON_IsString(title))
        snprintf(im->rep->title, sizeof im->rep->title, "%s", title->valuestring);
    rc = choose_base(im);
    if (rc < 0) return rc;
    const cJSON *paths = NULL;
    size_t index = 0;
    for (const cJSON *c = root->child; c && !paths; c = c->next, index++)
        if (strcmp(c->string, "paths") == 0) {
            paths = c;
            im->paths_index = index;
        }
    if (!paths) return fail(im, "no \"paths\" object: the document describes no routes");
    if (!cJSON_IsObject(paths)) return fail(im, "\"paths\" must be an object");
    rc = import_paths(im, paths);
    if (rc < 0) return rc;
    if (im->out->count == 0) return fail(im, "\"paths\" holds no operations");
    return RB_OK;
}

/* ---- reading -------------------------------------------------------------------------- */

static int import_text(const char *name, const char *text, size_t len,
                       const rb_openapi_options *opt, rb_route_table *out, rb_openapi_report *rep,
                       rb_error *err)
{
    memset(out, 0, sizeof *out);
    rb_openapi_report local;
    if (!rep) rep = &local;
    memset(rep, 0, sizeof *rep);
    if (len > RB_OPENAPI_MAX_BYTES)
        return rb__error(err, RB_EFORMAT, RB_NO_OFFSET,
                         "%s: the document is too large: %zu bytes, the budget is %zu MiB",
                         rb__openapi_short_name(name), len, RB_OPENAPI_MAX_BYTES >> 20);
    size_t bad = rb__openapi_first_binary_byte((const unsigned char *)text, len);
    if (bad < len) {
        char what[160];
        snprintf(what, sizeof what,
                 "not a text document: byte 0x%02x is not UTF-8 text (a binary file?)",
                 (unsigned char)text[bad]);
        return rb__openapi_fail_at(name, text, bad, err, what);
    }
    size_t start = 0;
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) start = 3; /* a byte-order mark */
    while (start < len && strchr(" \t\r\n", text[start])) start++;
    cJSON *root = NULL;
    bool json = start < len && (text[start] == '{' || text[start] == '[');
    snprintf(rep->format, sizeof rep->format, "%s", json ? "JSON" : "YAML");
    int rc = json ? rb__openapi_json_parse(name, text, len, &root, err)
                  : rb__openapi_yaml_parse(name, text, len, &root, err);
    if (rc == RB_ENOMEM) rb__error(err, rc, RB_NO_OFFSET, "out of memory reading %s", name);
    if (rc < 0) return rc;
    importer im = {.name = name,
                   .text = text,
                   .len = len,
                   .json = json,
                   .root = root,
                   .opt = opt,
                   .out = out,
                   .rep = rep,
                   .err = err};
    rc = import_document(&im);
    if (rc == RB_ENOMEM) rb__error(err, rc, RB_NO_OFFSET, "out of memory importing %s", name);
    rb__keyset_free(&im.routes);
    cJSON_Delete(root);
    if (rc < 0) rb_route_table_free(out);
    return rc;
}

int rb_openapi_import_with(const char *name, const char *text, size_t len,
                           const rb_openapi_options *opt, rb_route_table *out,
                           rb_openapi_report *rep, rb_error *err)
{
    int rc = import_text(name, text, len, opt, out, rep, err);
    /* keys and values quoted in a message are escaped; a file name may
     * still hold a control byte: none reaches the terminal */
    for (char *p = rc < 0 && err ? err->message : NULL; p && *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
    return rc;
}

int rb_openapi_import(const char *name, const char *text, size_t len, rb_route_table *out,
                      rb_openapi_report *rep, rb_error *err)
{
    return rb_openapi_import_with(name, text, len, NULL, out, rep, err);
}

int rb_openapi_import_file_with(const char *path, const rb_openapi_options *opt,
                                rb_route_table *out, rb_openapi_report *rep, rb_error *err)
{
    memset(out, 0, sizeof *out);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size > RB_OPENAPI_MAX_BYTES)
        return rb__error(err, RB_EFORMAT, RB_NO_OFFSET,
                         "%s: the document is too large: %lld bytes, the budget is %zu MiB",
                         rb__openapi_short_name(path), (long long)st.st_size,
                         RB_OPENAPI_MAX_BYTES >> 20);
    char *data;
    size_t len;
    int rc = rb_file_read(path, &data, &len, err);
    if (rc < 0) return rc;
    rc = rb_openapi_import_with(path, data, len, opt, out, rep, err);
    free(data);
    return rc;
}

int rb_openapi_import_file(const char *path, rb_route_table *out, rb_openapi_report *rep,
                           rb_error *err)
{
    return rb_openapi_import_file_with(path, NULL, out, rep, err);
}

/* ---- recognising a document ------------------------------------------------------- */

bool rb_openapi_hint(const char *path, rb_error *err)
{
    char *data;
    size_t len;
    rb_error ignored;
    if (!err || rb_file_read(path, &data, &len, &ignored) < 0) return false;
    int kind = rb_openapi_sniff(data, len);
    free(data);
    if (!kind) return false;
    snprintf(err->message, sizeof err->message,
             "%s: this looks like an %s document: use --openapi FILE (or corpus import)",
             rb__openapi_short_name(path), kind == 2 ? "OpenAPI (Swagger 2.0)" : "OpenAPI");
    return true;
}
