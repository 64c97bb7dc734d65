/*
 * table.c — readers, writers and fingerprints of route and request tables
 * (formats in table.h and docs/design.md).
 */
#include "table.h"

#include "buf.h"
#include "file.h"
#include "router_impl.h"

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

/* Call fn for every line that is not blank and not a comment. */
static int for_each_line(const char *name, const char *data, size_t len, size_t max_fields,
                         line_fn fn, void *table, rb_error *err)
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
        if (nf > 0 && f[0].p[0] != '#') {
            int rc = fn(table, name, line, f, nf, err);
            if (rc < 0) return rc;
        }
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
    char num[16];
    if (f[2].len >= sizeof num)
        return line_error(err, RB_EFORMAT, name, line, RB_NO_OFFSET, "EXPECTED is too long");
    memcpy(num, f[2].p, f[2].len);
    num[f[2].len] = '\0';
    char *end;
    long v = strtol(num, &end, 10);
    if (*end != '\0' || end == num || v < -2 || v > INT32_MAX)
        return line_error(err, RB_EFORMAT, name, line, RB_NO_OFFSET,
                          "EXPECTED '%s' is not a route id, -1 or -2", num);
    int rc = rb_request_table_append(table, method, f[1].p, f[1].len, (int32_t)v, line);
    if (rc < 0) return line_error(err, rc, name, line, RB_NO_OFFSET, "%s", rb_status_text(rc));
    return RB_OK;
}

int rb_route_table_parse(const char *name, const char *data, size_t len, rb_route_table *out,
                         rb_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = for_each_line(name, data, len, 2, route_line, out, err);
    if (rc < 0) rb_route_table_free(out);
    return rc;
}

int rb_request_table_parse(const char *name, const char *data, size_t len, rb_request_table *out,
                           rb_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = for_each_line(name, data, len, 3, request_line, out, err);
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

int rb_route_table_write(const char *path, const rb_route_table *t, const char *header,
                         rb_error *err)
{
    rb_buf b = {0};
    rb_route_table_text(t, header, &b);
    return write_buf(path, &b, err);
}

int rb_request_table_write(const char *path, const rb_request_table *t, rb_error *err)
{
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
