/*
 * openapi_text.c — what the OpenAPI readers (openapi.c, openapi_json.c,
 * openapi_yaml.c) share about text: quoting a value in a message, lines
 * and columns, the first byte that is not UTF-8 text; and whether a text
 * looks like an OpenAPI document (rb_openapi_sniff, which the routes
 * reader asks: this file calls nothing above it).
 */
#include "openapi_internal.h"

#include "openapi.h"
#include "base_internal.h"

#include <stdio.h>
#include <string.h>

/* ---- quoting values in messages ------------------------------------------------ */

size_t rb__openapi_utf8_length(unsigned char c)
{
    return c < 0x80             ? 1
           : (c & 0xe0) == 0xc0 ? 2
           : (c & 0xf0) == 0xe0 ? 3
           : (c & 0xf8) == 0xf0 ? 4
                                : 0;
}

char *rb__openapi_quote(const char *s, size_t n, size_t max, char *buf, size_t cap)
{
    size_t w = 0, i = 0;
    buf[w++] = '"';
    while (i < n && i < max) {
        unsigned char c = (unsigned char)s[i];
        char one[8];
        size_t k = 0, adv = 1;
        if (c == '"' || c == '\\') {
            k = (size_t)snprintf(one, sizeof one, "\\%c", c);
        } else if (c == '\t' || c == '\n' || c == '\r') {
            k = (size_t)snprintf(one, sizeof one, "\\%c", c == '\t' ? 't' : c == '\n' ? 'n' : 'r');
        } else if (c < 0x20 || c == 0x7f) {
            k = (size_t)snprintf(one, sizeof one, "\\u%04x", c);
        } else if (c >= 0x80) {
            adv = rb__openapi_utf8_length(c);
            bool whole = adv > 1 && i + adv <= n;
            for (size_t j = 1; whole && j < adv; j++)
                whole = ((unsigned char)s[i + j] & 0xc0) == 0x80;
            if (whole) {
                memcpy(one, s + i, adv);
                k = adv;
            } else {
                adv = 1;
                k = (size_t)snprintf(one, sizeof one, "\\x%02x", c);
            }
        } else {
            one[k++] = (char)c;
        }
        if (i + adv > max || w + k + 5 > cap) break; /* room for ...", NUL */
        memcpy(buf + w, one, k);
        w += k;
        i += adv;
    }
    if (i < n) {
        memcpy(buf + w, "...", 3);
        w += 3;
    }
    buf[w++] = '"';
    buf[w] = '\0';
    return buf;
}

void rb__openapi_locate(const char *s, size_t off, size_t *line, size_t *col)
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

const char *rb__openapi_short_name(const char *name)
{
    size_t n = strlen(name);
    return n > 60 ? name + n - 60 : name;
}

int rb__openapi_fail_at(const char *name, const char *s, size_t off, rb_error *err,
                        const char *what)
{
    size_t line, col;
    rb__openapi_locate(s, off, &line, &col);
    rb__error(err, RB_EFORMAT, off, "%s:%zu:%zu: %s", rb__openapi_short_name(name), line, col,
              what);
    if (err) err->line = line;
    return RB_EFORMAT;
}

size_t rb__openapi_first_binary_byte(const unsigned char *s, size_t len)
{
    for (size_t i = 0; i < len;) {
        unsigned char c = s[i];
        size_t n = rb__openapi_utf8_length(c);
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

/* ---- recognising a document ------------------------------------------------------- */

/* Does the line at s[0, n) start with the key `word`, bare or quoted? */
static bool starts_with_key(const char *s, size_t n, const char *word)
{
    size_t w = strlen(word), q = n > 0 && (s[0] == '"' || s[0] == '\'');
    if (n < q + w + q + 1 || memcmp(s + q, word, w) != 0) return false;
    if (q && s[q + w] != s[0]) return false;
    size_t i = q + w + q;
    while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
    return i < n && s[i] == ':';
}

/* JSON: a key "openapi" or "swagger" of the top-level object, wherever it
 * is among the keys (a document may open with "components"). */
static int sniff_json(const char *text, size_t len, size_t i)
{
    size_t depth = 0;
    for (size_t k = i; k < len; k++) {
        char c = text[k];
        if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (depth-- <= 1) return 0;
        } else if (c == '"') {
            if (depth == 1 && starts_with_key(text + k, len - k, "openapi")) return 3;
            if (depth == 1 && starts_with_key(text + k, len - k, "swagger")) return 2;
            for (k++; k < len && text[k] != '"'; k++)
                if (text[k] == '\\') k++;
        }
    }
    return 0;
}

int rb_openapi_sniff(const char *text, size_t len)
{
    size_t i = 0;
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) i = 3;
    while (i < len && strchr(" \t\r\n", text[i])) i++;
    if (i < len && text[i] == '{') return sniff_json(text, len, i);
    for (size_t at = i; at < len;) { /* YAML: a top-level key, at the start of a line */
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - text) : len;
        if (starts_with_key(text + at, end - at, "openapi")) return 3;
        if (starts_with_key(text + at, end - at, "swagger")) return 2;
        at = end + 1;
    }
    return 0;
}
