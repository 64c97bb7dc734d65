/*
 * buf.c — the growable byte buffer of buf.h.
 */
#include "buf.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rb_buf_append(rb_buf *b, const char *s, size_t n)
{
    if (b->failed) return;
    if (n > SIZE_MAX - b->len - 1 || rb_grow(NULL, &b->data, &b->cap, b->len + n + 1, 1, 256)) {
        b->failed = 1;
        return;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void rb_buf_puts(rb_buf *b, const char *s)
{
    rb_buf_append(b, s, strlen(s));
}

void rb_buf_vprintf(rb_buf *b, const char *fmt, va_list ap)
{
    char small[512];
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n < 0) {
        b->failed = 1;
    } else if ((size_t)n < sizeof small) {
        rb_buf_append(b, small, (size_t)n);
    } else {
        char *big = malloc((size_t)n + 1);
        if (!big) {
            b->failed = 1;
        } else {
            vsnprintf(big, (size_t)n + 1, fmt, again);
            rb_buf_append(b, big, (size_t)n);
            free(big);
        }
    }
    va_end(again);
}

void rb_buf_printf(rb_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rb_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

/* Columns of s[0, n): one per character (UTF-8 continuation bytes add
 * none). */
static size_t columns(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++) c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

void rb_buf_wrap(rb_buf *b, const char *text, size_t indent, size_t col, size_t width)
{
    /* the text's own lead (blank lines, the first line's indent) as it is */
    size_t lines = strspn(text, "\n"), blanks = strspn(text + lines, " ");
    rb_buf_append(b, text, lines + blanks);
    col = (lines ? 0 : col) + blanks;
    const char *p = text + lines + blanks;
    bool first = true;
    while (*p) {
        while (*p == ' ' || *p == '\n') p++;
        if (!*p) break;
        size_t n = strcspn(p, " \n"), w = columns(p, n);
        if (!first && col + 1 + w > width) {
            rb_buf_printf(b, "\n%*s", (int)indent, "");
            col = indent;
            first = true;
        }
        if (!first) {
            rb_buf_puts(b, " ");
            col++;
        }
        rb_buf_append(b, p, n);
        col += w;
        p += n;
        first = false;
    }
    rb_buf_puts(b, "\n");
}

void rb_buf_free(rb_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}
