/*
 * http_parse.c — the client side of HTTP/1.1 that `routebench http` needs:
 * format a request, parse one response out of a byte buffer (status line,
 * the headers we read, a Content-Length body), and turn the server's
 * X-Route / Allow headers back into an rb_match so it can be compared with
 * linear's answer field by field.
 *
 * The parser is not incremental: callers accumulate bytes and call again;
 * a response here is a few hundred bytes, so re-reading is cheaper than
 * keeping state.  It accepts what RFC 9112 allows a server to send in
 * these answers (any header order and case, optional whitespace) and
 * refuses what our server never sends (chunked bodies, no length).
 */
#define _DEFAULT_SOURCE
#include "http.h"

#include "base_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void rb_http_format_request(rb_buf *b, int method, const char *path, size_t len)
{
    rb_buf_puts(b, rb_method_name(method));
    rb_buf_puts(b, " ");
    rb_buf_append(b, path, len);
    rb_buf_puts(b, " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
}

bool rb_http_path_sendable(const char *path, size_t len, size_t *bad)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)path[i];
        if (c <= 0x20 || c == 0x7f || c == '?' || c == '#') {
            *bad = i;
            return false;
        }
    }
    return true;
}

/* The line [p, *eol) ending in CRLF; NULL when no CRLF yet. */
static const char *line_end(const char *p, const char *end)
{
    for (const char *q = p; q + 1 < end; q++)
        if (q[0] == '\r' && q[1] == '\n') return q;
    return NULL;
}

static void trim(const char **s, const char **e)
{
    while (*s < *e && (**s == ' ' || **s == '\t')) (*s)++;
    while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t')) (*e)--;
}

static void copy_value(char *dst, size_t cap, const char *s, const char *e)
{
    size_t n = (size_t)(e - s);
    if (n >= cap) n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

static bool name_is(const char *s, const char *colon, const char *name)
{
    size_t n = strlen(name);
    return (size_t)(colon - s) == n && strncasecmp(s, name, n) == 0;
}

int rb_http_response_parse(const char *buf, size_t len, bool head, rb_http_response *r,
                           size_t *used, rb_error *err)
{
    const char *p = buf, *end = buf + len;
    const char *eol = line_end(p, end);
    if (!eol)
        return len > 8192 ? rb__error(err, RB_EFORMAT, RB_NO_OFFSET, "status line too long") : 0;
    memset(r, 0, sizeof *r);
    /* HTTP/1.x SP 3DIGIT SP reason */
    if (eol - p < 12 || memcmp(p, "HTTP/1.", 7) != 0 || p[8] != ' ' ||
        !isdigit((unsigned char)p[9]) || !isdigit((unsigned char)p[10]) ||
        !isdigit((unsigned char)p[11]))
        return rb__error(err, RB_EFORMAT, RB_NO_OFFSET, "not an HTTP/1.x status line: '%.*s'",
                         (int)(eol - p > 60 ? 60 : eol - p), p);
    r->status = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
    bool http10 = p[7] == '0', have_length = false;
    r->close = http10;
    p = eol + 2;
    for (;;) {
        eol = line_end(p, end);
        if (!eol)
            return len > 65536 ? rb__error(err, RB_EFORMAT, RB_NO_OFFSET, "headers too long") : 0;
        if (eol == p) break; /* the empty line */
        const char *colon = memchr(p, ':', (size_t)(eol - p));
        if (!colon)
            return rb__error(err, RB_EFORMAT, RB_NO_OFFSET, "header line without ':': '%.*s'",
                             (int)(eol - p > 60 ? 60 : eol - p), p);
        const char *vs = colon + 1, *ve = eol;
        trim(&vs, &ve);
        if (name_is(p, colon, "Content-Length")) {
            char num[32];
            copy_value(num, sizeof num, vs, ve);
            char *stop;
            unsigned long long n = strtoull(num, &stop, 10);
            if (!num[0] || *stop || n > 1u << 20)
                return rb__error(err, RB_EFORMAT, RB_NO_OFFSET, "bad Content-Length '%s'", num);
            r->content_length = (size_t)n;
            have_length = true;
        } else if (name_is(p, colon, "Transfer-Encoding")) {
            return rb__error(err, RB_EFORMAT, RB_NO_OFFSET,
                             "Transfer-Encoding '%.*s' is not supported", (int)(ve - vs), vs);
        } else if (name_is(p, colon, "Connection")) {
            if ((size_t)(ve - vs) == 5 && strncasecmp(vs, "close", 5) == 0) r->close = true;
        } else if (name_is(p, colon, "X-Route")) {
            r->has_route = true;
            copy_value(r->route, sizeof r->route, vs, ve);
        } else if (name_is(p, colon, "Allow")) {
            r->has_allow = true;
            copy_value(r->allow, sizeof r->allow, vs, ve);
        }
        p = eol + 2;
    }
    p += 2;
    bool bodyless = head || r->status == 204 || r->status == 304 || r->status / 100 == 1;
    if (bodyless)
        r->content_length = 0;
    else if (!have_length)
        return rb__error(err, RB_EFORMAT, RB_NO_OFFSET, "response %d without Content-Length",
                         r->status);
    if ((size_t)(end - p) < r->content_length) return 0;
    r->body = p;
    *used = (size_t)(p - buf) + r->content_length;
    return 1;
}

/* "ID OFF+LEN ..." */
static int parse_route(const char *s, rb_match *m, rb_error *err)
{
    char *e;
    const char *start = s;
    unsigned long id = strtoul(s, &e, 10);
    if (e == s || id > UINT32_MAX) goto bad;
    m->route_id = (uint32_t)id;
    s = e;
    while (*s == ' ') {
        s++;
        if (m->nparams == RB_MAX_CAPTURES) goto bad;
        unsigned long off = strtoul(s, &e, 10);
        if (e == s || *e != '+') goto bad;
        s = e + 1;
        unsigned long len = strtoul(s, &e, 10);
        if (e == s || off > UINT32_MAX || len > UINT32_MAX) goto bad;
        m->params[m->nparams].offset = (uint32_t)off;
        m->params[m->nparams].len = (uint32_t)len;
        m->nparams++;
        s = e;
    }
    if (*s) goto bad;
    return RB_OK;
bad:
    return rb__error(err, RB_EFORMAT, RB_NO_OFFSET, "X-Route '%s' is not 'ID OFF+LEN ...'", start);
}

/* "GET, POST" -> mask */
static int parse_allow(const char *s, uint32_t *mask, rb_error *err)
{
    const char *start = s;
    *mask = 0;
    while (*s) {
        while (*s == ' ' || *s == ',') s++;
        const char *w = s;
        while (*s && *s != ',' && *s != ' ') s++;
        if (s == w) break;
        int m = rb_method_parse(w, (size_t)(s - w));
        if (m < 0 || m >= RB_METHOD_COUNT)
            return rb__error(err, RB_EFORMAT, RB_NO_OFFSET, "Allow '%s': unknown method '%.*s'",
                             start, (int)(s - w), w);
        *mask |= RB_METHOD_BIT(m);
    }
    return RB_OK;
}

int rb_http_response_match(const rb_http_response *r, rb_match *m, rb_error *err)
{
    memset(m, 0, sizeof *m);
    switch (r->status) {
    case 200:
        m->outcome = RB_FOUND;
        if (!r->has_route)
            return rb__error(err, RB_EFORMAT, RB_NO_OFFSET, "200 without an X-Route header");
        return parse_route(r->route, m, err);
    case 404:
        m->outcome = RB_NOT_FOUND;
        return RB_OK;
    case 405:
        m->outcome = RB_METHOD_NOT_ALLOWED;
        if (!r->has_allow)
            return rb__error(err, RB_EFORMAT, RB_NO_OFFSET, "405 without an Allow header");
        return parse_allow(r->allow, &m->allowed, err);
    default:
        return rb__error(err, RB_EFORMAT, RB_NO_OFFSET, "status %d (expected 200, 404 or 405)",
                         r->status);
    }
}
