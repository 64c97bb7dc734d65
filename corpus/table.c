/*
 * table.c — readers, writers and fingerprints of route and request tables
 * (formats in table.h and docs/corpora.md).
 */
#include "table.h"

#include "buf.h"
#include "file.h"
#include "router_kit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* ---- growth ---------------------------------------------------------------- */

static int append_bytes(char **bytes, size_t *nbytes, size_t *cap, const char *s, size_t len,
                        uint32_t *off)
{
    if (*nbytes + len + 1 > UINT32_MAX) return RB_ELIMIT;
    if (rb_grow(NULL, bytes, cap, *nbytes + len + 1, 1, 64) < 0) return RB_ENOMEM;
    memcpy(*bytes + *nbytes, s, len);
    (*bytes)[*nbytes + len] = '\0';
    *off = (uint32_t)*nbytes;
    *nbytes += len + 1;
    return RB_OK;
}

int rb_route_table_append(rb_route_table *t, int method, const char *pattern, size_t len,
                          size_t line)
{
    if (rb_grow(NULL, &t->routes, &t->cap, t->count + 1, sizeof *t->routes, 64) < 0)
        return RB_ENOMEM;
    uint32_t off;
    int rc = append_bytes(&t->bytes, &t->nbytes, &t->bytes_cap, pattern, len, &off);
    if (rc < 0) return rc;
    t->routes[t->count++] = (rb_route_entry){method, off, (uint32_t)len, line};
    return RB_OK;
}

int rb_request_table_append(rb_request_table *t, int method, const char *path, size_t len,
                            int32_t expected, size_t line)
{
    if (rb_grow(NULL, &t->reqs, &t->cap, t->count + 1, sizeof *t->reqs, 64) < 0) return RB_ENOMEM;
    uint32_t off;
    int rc = append_bytes(&t->bytes, &t->nbytes, &t->bytes_cap, path, len, &off);
    if (rc < 0) return rc;
    t->reqs[t->count++] = (rb_request){method, off, (uint32_t)len, expected, line};
    return RB_OK;
}

void rb_route_table_free(rb_route_table *t)
{
    free(t->routes);
    free(t->bytes);
    memset(t, 0, sizeof *t);
}

void rb_request_table_free(rb_request_table *t)
{
    free(t->reqs);
    free(t->bytes);
    memset(t, 0, sizeof *t);
}

/* ---- parsing ---------------------------------------------------------------- */

static int line_error(rb_error *err, int code, const char *name, size_t line, size_t offset,
                      const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

static int line_error(rb_error *err, int code, const char *name, size_t line, size_t offset,
                      const char *fmt, ...)
{
    if (!err) return code;
    char detail[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    err->code = code;
    err->offset = offset;
    err->line = line;
    snprintf(err->message, sizeof err->message, "%s:%zu: %s", name, line, detail);
    return code;
}

typedef struct field {
    const char *p;
    size_t len;
} field;

/* Split a line on spaces/tabs into at most max fields; returns the count
 * (max + 1 when there are more). */
static size_t split_fields(const char *p, size_t len, field *out, size_t max)
{
    size_t n = 0, i = 0;
    while (i < len) {
        while (i < len && (p[i] == ' ' || p[i] == '\t')) i++;
        if (i == len) break;
        size_t b = i;
        while (i < len && p[i] != ' ' && p[i] != '\t') i++;
        if (n == max) return max + 1;
        out[n++] = (field){p + b, i - b};
    }
    return n;
}

typedef int (*line_fn)(void *table, const char *name, size_t line, const field *f, size_t nf,
                       rb_error *err);
typedef int (*comment_fn)(void *table, const char *name, size_t line, const char *text, size_t len,
                          rb_error *err);

/* Call fn for every line that is not blank and not a comment, and comment
 * (may be NULL) for every comment line (its text from the '#', without the
 * line end). */
static int for_each_line(const char *name, const char *data, size_t len, size_t max_fields,
                         line_fn fn, comment_fn comment, void *table, rb_error *err)
{
    size_t line = 0, i = 0;
    while (i < len) {
        line++;
        const char *nl = memchr(data + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - data) : len;
        size_t e = end;
        if (e > i && data[e - 1] == '\r') e--;
        field f[4];
        size_t nf = split_fields(data + i, e - i, f, max_fields);
        int rc = RB_OK;
        if (nf > 0 && f[0].p[0] != '#')
            rc = fn(table, name, line, f, nf, err);
        else if (nf > 0 && comment)
            rc = comment(table, name, line, f[0].p, (size_t)(data + e - f[0].p), err);
        if (rc < 0) return rc;
        i = end + 1;
    }
    return RB_OK;
}

static int route_line(void *table, const char *name, size_t line, const field *f, size_t nf,
                      rb_error *err)
{
    if (nf != 2)
        return line_error(err, RB_EFORMAT, name, line, RB_NO_OFFSET,
                          "expected 'METHOD PATTERN' (2 fields), found %s", nf > 2 ? "more" : "1");
    int method = rb_method_parse(f[0].p, f[0].len);
    if (method < 0)
        return line_error(err, RB_EFORMAT, name, line, RB_NO_OFFSET, "unknown method '%.*s'",
                          (int)(f[0].len > 40 ? 40 : f[0].len), f[0].p);
    rb_pattern p;
    rb_error perr;
    int rc = rb_pattern_parse(f[1].p, f[1].len, NULL, &p, &perr);
    if (rc < 0)
        return line_error(err, rc, name, line, perr.offset, "pattern '%.*s': %s",
                          (int)(f[1].len > 60 ? 60 : f[1].len), f[1].p, perr.message);
    rb_pattern_free(&p);
    rc = rb_route_table_append(table, method, f[1].p, f[1].len, line);
    if (rc < 0) return line_error(err, rc, name, line, RB_NO_OFFSET, "%s", rb_status_text(rc));
    return RB_OK;
}

/* EXPECTED: -1, -2, or a route id in canonical decimal (no sign, no
 * leading zero: "+2" and "0002" are not ids), at most INT32_MAX. */
static bool parse_expected(const char *p, size_t len, int32_t *out)
{
    if (len == 2 && p[0] == '-' && (p[1] == '1' || p[1] == '2')) {
        *out = p[1] == '1' ? RB_EXPECT_NOT_FOUND : RB_EXPECT_NOT_ALLOWED;
        return true;
    }
    if (len == 0 || len > 10 || (p[0] == '0' && len > 1)) return false;
    int64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (p[i] < '0' || p[i] > '9') return false;
        v = v * 10 + (p[i] - '0');
    }
    if (v > INT32_MAX) return false;
    *out = (int32_t)v;
    return true;
}

/* How many leading bytes of p[0, len) (at most max) are printable ASCII, so
 * a message quotes no raw control byte. */
static int printable_len(const char *p, size_t len, size_t max)
{
    size_t n = 0;
    while (n < len && n < max && (unsigned char)p[n] >= 0x20 && (unsigned char)p[n] < 0x7f) n++;
    return (int)n;
}

static bool is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A "# routes xxh3:<16 hex digits>" line records the route table the
 * requests were made for; other comments are skipped. */
static int request_comment(void *table, const char *name, size_t line, const char *text, size_t len,
                           rb_error *err)
{
    static const char prefix[] = RB_ROUTES_FP_PREFIX;
    size_t plen = sizeof prefix - 1;
    if (len < plen || memcmp(text, prefix, plen) != 0) return RB_OK;
    rb_request_table *t = table;
    size_t n = 0;
    while (plen + n < len && n < 17 && is_hex(text[plen + n])) n++;
    if (n != 16 || (plen + n < len && text[plen + n] != ' ' && text[plen + n] != '\t'))
        return line_error(err, RB_EFORMAT, name, line, RB_NO_OFFSET,
                          "malformed routes fingerprint: expected '%s' and 16 hex digits", prefix);
    char hex[17];
    memcpy(hex, text + plen, 16);
    hex[16] = '\0';
    uint64_t fp = strtoull(hex, NULL, 16);
    if (t->has_routes_fp && fp != t->routes_fp)
        return line_error(err, RB_EFORMAT, name, line, RB_NO_OFFSET,
                          "a second routes fingerprint, xxh3:%016llx, differs from line %zu's "
                          "xxh3:%016llx: one requests file is for one route table",
                          (unsigned long long)fp, t->routes_fp_line,
                          (unsigned long long)t->routes_fp);
    if (!t->has_routes_fp) t->routes_fp_line = line;
    t->routes_fp = fp;
    t->has_routes_fp = true;
    return RB_OK;
}

static int request_line(void *table, const char *name, size_t line, const field *f, size_t nf,
                        rb_error *err)
{
    if (nf != 3)
        return line_error(err, RB_EFORMAT, name, line, RB_NO_OFFSET,
                          "expected 'METHOD PATH EXPECTED' (3 fields), found %zu%s",
                          nf > 3 ? (size_t)3 : nf, nf > 3 ? "+" : "");
    int method = rb_method_parse(f[0].p, f[0].len);
    if (method < 0 || method == RB_ANY)
        return line_error(err, RB_EFORMAT, name, line, RB_NO_OFFSET,
                          "unknown request method '%.*s'", (int)(f[0].len > 40 ? 40 : f[0].len),
                          f[0].p);
    int32_t expected;
    if (!parse_expected(f[2].p, f[2].len, &expected))
        return line_error(err, RB_EFORMAT, name, line, RB_NO_OFFSET,
                          "EXPECTED '%.*s' is not a route id (0, 1, 2, ... written without a sign "
                          "or leading zeros), -1 or -2",
                          printable_len(f[2].p, f[2].len, 24), f[2].p);
    const char *cr = memchr(f[1].p, '\r', f[1].len);
    if (cr)
        return line_error(err, RB_EFORMAT, name, line, (size_t)(cr - f[1].p),
                          "a carriage return at byte %zu of the path: a requests file cannot "
                          "carry it",
                          (size_t)(cr - f[1].p));
    int rc = rb_request_table_append(table, method, f[1].p, f[1].len, expected, line);
    if (rc < 0) return line_error(err, rc, name, line, RB_NO_OFFSET, "%s", rb_status_text(rc));
    return RB_OK;
}

int rb_route_table_parse(const char *name, const char *data, size_t len, rb_route_table *out,
                         rb_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = for_each_line(name, data, len, 2, route_line, NULL, out, err);
    if (rc < 0) rb_route_table_free(out);
    return rc;
}

int rb_request_table_parse(const char *name, const char *data, size_t len, rb_request_table *out,
                           rb_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = for_each_line(name, data, len, 3, request_line, request_comment, out, err);
    if (rc < 0) rb_request_table_free(out);
    return rc;
}

int rb_route_table_read(const char *path, rb_route_table *out, rb_error *err)
{
    char *data;
    size_t len;
    memset(out, 0, sizeof *out);
    int rc = rb_file_read(path, &data, &len, err);
    if (rc < 0) return rc;
    rc = rb_route_table_parse(path, data, len, out, err);
    free(data);
    return rc;
}

int rb_request_table_read(const char *path, rb_request_table *out, rb_error *err)
{
    char *data;
    size_t len;
    memset(out, 0, sizeof *out);
    int rc = rb_file_read(path, &data, &len, err);
    if (rc < 0) return rc;
    rc = rb_request_table_parse(path, data, len, out, err);
    free(data);
    return rc;
}

/* ---- writing and fingerprints ---------------------------------------------- */

void rb_route_table_text(const rb_route_table *t, const char *header, rb_buf *b)
{
    for (const char *p = header; p && *p;) {
        size_t n = strcspn(p, "\n");
        rb_buf_append(b, "# ", 2);
        rb_buf_append(b, p, n);
        rb_buf_append(b, "\n", 1);
        p += n + (p[n] == '\n');
    }
    for (size_t i = 0; i < t->count; i++) {
        rb_buf_puts(b, rb_method_name(t->routes[i].method));
        rb_buf_append(b, " ", 1);
        rb_buf_append(b, rb_route_pattern(t, i), t->routes[i].len);
        rb_buf_append(b, "\n", 1);
    }
}

void rb_request_table_text(const rb_request_table *t, rb_buf *b)
{
    if (t->has_routes_fp)
        rb_buf_printf(b, RB_ROUTES_FP_PREFIX "%016llx  (the route table these requests are for)\n",
                      (unsigned long long)t->routes_fp);
    for (size_t i = 0; i < t->count; i++) {
        rb_buf_puts(b, rb_method_name(t->reqs[i].method));
        rb_buf_append(b, " ", 1);
        rb_buf_append(b, rb_request_path(t, i), t->reqs[i].len);
        rb_buf_printf(b, " %d\n", (int)t->reqs[i].expected);
    }
}

static int write_buf(const char *path, rb_buf *b, rb_error *err)
{
    int rc;
    if (b->failed)
        rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory writing %s", path);
    else
        rc = rb_file_write_atomic(path, b->data ? b->data : "", b->len, err);
    rb_buf_free(b);
    return rc;
}

int rb_route_table_check_text(const rb_route_table *t, rb_error *err)
{
    for (size_t i = 0; i < t->count; i++) {
        const rb_route_entry *e = &t->routes[i];
        size_t line = e->line ? e->line : i + 1;
        if (!rb_method_name(e->method))
            return line_error(err, RB_EFORMAT, "routes", line, RB_NO_OFFSET,
                              "route %zu: method %d has no name to write", i, e->method);
        rb_pattern p;
        rb_error perr;
        int rc = rb_pattern_parse(rb_route_pattern(t, i), e->len, NULL, &p, &perr);
        if (rc < 0)
            return line_error(err, rc, "routes", line, perr.offset, "route %zu: %s", i,
                              perr.message);
        rb_pattern_free(&p);
    }
    return RB_OK;
}

int rb_request_table_check_text(const rb_request_table *t, rb_error *err)
{
    for (size_t i = 0; i < t->count; i++) {
        const rb_request *q = &t->reqs[i];
        size_t line = q->line ? q->line : i + 1;
        const char *path = rb_request_path(t, i);
        if (!rb_method_name(q->method) || q->method == RB_ANY)
            return line_error(err, RB_EFORMAT, "requests", line, RB_NO_OFFSET,
                              "request %zu: method %d is not a request method", i, q->method);
        if (q->len == 0)
            return line_error(err, RB_EFORMAT, "requests", line, RB_NO_OFFSET,
                              "request %zu: an empty path cannot be written", i);
        for (size_t k = 0; k < q->len; k++)
            if (path[k] == ' ' || path[k] == '\t' || path[k] == '\r' || path[k] == '\n')
                return line_error(err, RB_EFORMAT, "requests", line, k,
                                  "request %zu: byte %zu of the path (0x%02x) is whitespace: a "
                                  "requests file cannot carry it",
                                  i, k, (unsigned char)path[k]);
        if (q->expected < RB_EXPECT_NOT_ALLOWED)
            return line_error(err, RB_EFORMAT, "requests", line, RB_NO_OFFSET,
                              "request %zu: EXPECTED %d is not a route id, -1 or -2", i,
                              (int)q->expected);
    }
    return RB_OK;
}

int rb_request_table_check_routes(const rb_request_table *q, const char *requests_name,
                                  const rb_route_table *r, const char *routes_name, rb_error *err)
{
    uint64_t fp = rb_route_table_fingerprint(r);
    if (q->has_routes_fp && q->routes_fp != fp)
        return line_error(err, RB_EFORMAT, requests_name, q->routes_fp_line ? q->routes_fp_line : 1,
                          RB_NO_OFFSET,
                          "these requests are for the route table xxh3:%016llx, but %s is "
                          "xxh3:%016llx: a requests file belongs to one route table (make one "
                          "for it with routebench corpus requests)",
                          (unsigned long long)q->routes_fp, routes_name, (unsigned long long)fp);
    for (size_t i = 0; i < q->count; i++) {
        int32_t x = q->reqs[i].expected;
        if (x >= 0 && (size_t)x >= r->count)
            return line_error(err, RB_EFORMAT, requests_name,
                              q->reqs[i].line ? q->reqs[i].line : i + 1, RB_NO_OFFSET,
                              "EXPECTED %d is not a route of %s, which has %zu route%s (ids "
                              "0 to %zu)",
                              (int)x, routes_name, r->count, r->count == 1 ? "" : "s",
                              r->count - 1);
    }
    return RB_OK;
}

int rb_route_table_write(const char *path, const rb_route_table *t, const char *header,
                         rb_error *err)
{
    int rc = rb_route_table_check_text(t, err);
    if (rc < 0) return rc;
    rb_buf b = {0};
    rb_route_table_text(t, header, &b);
    return write_buf(path, &b, err);
}

int rb_request_table_write(const char *path, const rb_request_table *t, rb_error *err)
{
    int rc = rb_request_table_check_text(t, err);
    if (rc < 0) return rc;
    rb_buf b = {0};
    rb_request_table_text(t, &b);
    return write_buf(path, &b, err);
}

uint64_t rb_route_table_fingerprint(const rb_route_table *t)
{
    XXH3_state_t *s = XXH3_createState();
    if (!s) return 0;
    XXH3_64bits_reset(s);
    for (size_t i = 0; i < t->count; i++) {
        const char *m = rb_method_name(t->routes[i].method);
        XXH3_64bits_update(s, m, strlen(m));
        XXH3_64bits_update(s, " ", 1);
        XXH3_64bits_update(s, rb_route_pattern(t, i), t->routes[i].len);
        XXH3_64bits_update(s, "\n", 1);
    }
    uint64_t h = XXH3_64bits_digest(s);
    XXH3_freeState(s);
    return h;
}

uint64_t rb_request_table_fingerprint(const rb_request_table *t)
{
    XXH3_state_t *s = XXH3_createState();
    if (!s) return 0;
    XXH3_64bits_reset(s);
    for (size_t i = 0; i < t->count; i++) {
        char tail[24];
        const char *m = rb_method_name(t->reqs[i].method);
        int n = snprintf(tail, sizeof tail, " %d\n", (int)t->reqs[i].expected);
        XXH3_64bits_update(s, m, strlen(m));
        XXH3_64bits_update(s, " ", 1);
        XXH3_64bits_update(s, rb_request_path(t, i), t->reqs[i].len);
        XXH3_64bits_update(s, tail, (size_t)n);
    }
    uint64_t h = XXH3_64bits_digest(s);
    XXH3_freeState(s);
    return h;
}

unsigned rb_route_table_features(const rb_route_table *t)
{
    unsigned f = 0;
    for (size_t i = 0; i < t->count; i++) {
        rb_pattern p;
        if (rb_pattern_parse(rb_route_pattern(t, i), t->routes[i].len, NULL, &p, NULL) < 0)
            continue;
        f |= p.features;
        rb_pattern_free(&p);
    }
    return f;
}

/* ---- loading into routers --------------------------------------------------- */

int rb_route_table_add_to(const rb_route_table *t, const char *name, rb_router *r, size_t *refused,
                          rb_error *first_refusal, rb_error *err)
{
    if (refused) *refused = 0;
    for (size_t i = 0; i < t->count; i++) {
        const rb_route_entry *e = &t->routes[i];
        rb_error aerr;
        int rc = rb_router_add(r, e->method, rb_route_pattern(t, i), e->len, (uint32_t)i, &aerr);
        if (rc == RB_OK) continue;
        size_t line = e->line ? e->line : i + 1;
        if (refused && rc == RB_EUNSUPPORTED) {
            if (*refused == 0 && first_refusal)
                line_error(first_refusal, rc, name, line, aerr.offset, "%s", aerr.message);
            (*refused)++;
            continue;
        }
        return line_error(err, rc, name, line, aerr.offset, "%s", aerr.message);
    }
    return RB_OK;
}

int rb_route_table_set(const rb_route_table *t, const char *name, const rb_config *config,
                       rb_route_set **out, rb_error *err)
{
    rb_route_set *s;
    int rc = rb_route_set_create(config, &s, err);
    if (rc < 0) return rc;
    for (size_t i = 0; i < t->count && rc == RB_OK; i++) {
        const rb_route_entry *e = &t->routes[i];
        rb_error aerr;
        rc = rb_route_set_add(s, e->method, rb_route_pattern(t, i), e->len, (uint32_t)i, &aerr);
        if (rc < 0)
            line_error(err, rc, name, e->line ? e->line : i + 1, aerr.offset, "%s", aerr.message);
    }
    if (rc < 0) {
        rb_route_set_destroy(s);
        s = NULL;
    }
    *out = s;
    return rc;
}

int rb_route_set_build_router(const rb_route_set *s, const rb_router_ops *ops,
                              const rb_config *config, rb_router **out, rb_error *err)
{
    rb_router *r;
    int rc = rb_router_create_ops(ops, config, &r, err);
    if (rc < 0) return rc;
    rc = rb_router_add_set(r, s, err);
    if (rc == RB_OK) rc = rb_router_build(r, err);
    if (rc < 0) {
        rb_router_destroy(r);
        r = NULL;
    }
    *out = r;
    return rc;
}

int rb_route_table_build_router(const rb_route_table *t, const char *name, const rb_router_ops *ops,
                                const rb_config *config, rb_router **out, rb_error *err)
{
    rb_router *r;
    int rc = rb_router_create_ops(ops, config, &r, err);
    if (rc < 0) return rc;
    rc = rb_route_table_add_to(t, name, r, NULL, NULL, err);
    if (rc == RB_OK) rc = rb_router_build(r, err);
    if (rc < 0) {
        rb_router_destroy(r);
        *out = NULL;
        return rc;
    }
    *out = r;
    return RB_OK;
}

bool rb__path_push(char *path, size_t cap, size_t *len, const char *seg, size_t n)
{
    if (*len + 1 + n >= cap) return false;
    path[(*len)++] = '/';
    memcpy(path + *len, seg, n);
    *len += n;
    return true;
}
