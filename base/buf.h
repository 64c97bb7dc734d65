/*
 * buf.h — a growable byte buffer on the C heap, for building file contents
 * and messages.  Appends never fail loudly: a failed allocation sets
 * `failed`, later appends do nothing, and the caller checks `failed` once
 * before using the contents (so building a file is not an error check per
 * line).  data is NUL-terminated after len bytes whenever it is not NULL.
 */
#ifndef RB_BASE_BUF_H
#define RB_BASE_BUF_H

#include "base.h"

#include <stdarg.h>

/* Zero-initialise to start empty. */
typedef struct rb_buf {
    char *data;
    size_t len, cap;
    int failed; /* an allocation failed: contents are incomplete */
} rb_buf;

void rb_buf_append(rb_buf *b, const char *s, size_t n);
void rb_buf_puts(rb_buf *b, const char *s);
void rb_buf_printf(rb_buf *b, const char *fmt, ...) RB_PRINTF(2, 3);
void rb_buf_vprintf(rb_buf *b, const char *fmt, va_list ap) RB_PRINTF(2, 0);
/* Append text, its words (runs of bytes other than ' ' and '\n') joined
 * by one space, wrapped before column width: the first line goes on from
 * column col (after the text's own leading newlines and blanks, which are
 * kept), the next ones start with indent spaces; a word wider than the
 * room stays whole on a line of its own.  Ends with '\n'. */
void rb_buf_wrap(rb_buf *b, const char *text, size_t indent, size_t col, size_t width);
/* Free the contents and make b empty again. */
void rb_buf_free(rb_buf *b);

#endif
