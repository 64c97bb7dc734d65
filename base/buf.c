/*
 * buf.c — the growable byte buffer of buf.h.
 */
#include "buf.h"

#include <stdarg.h>
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

void rb_buf_printf(rb_buf *b, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        rb_buf_append(b, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        b->failed = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    rb_buf_append(b, big, (size_t)n);
    free(big);
}

void rb_buf_free(rb_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}
