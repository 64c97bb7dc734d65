/*
 * files.h — whole-file reads and atomic writes (temp file in the same
 * directory, fsync, rename), so an output file is either the old one or the
 * complete new one, never a torn mixture.
 */
#ifndef RB_CORPUS_FILES_H
#define RB_CORPUS_FILES_H

#include "router.h"

/* Read the whole file; *data is malloc'ed with a NUL after *len bytes. */
int rb_file_read(const char *path, char **data, size_t *len, rb_error *err);

/* Replace path with data[0, len) atomically. */
int rb_file_write_atomic(const char *path, const char *data, size_t len, rb_error *err);

/* Grow *items (an array of item_size-byte elements, *cap of them) to hold at
 * least need elements, doubling from 64.  RB_ENOMEM leaves it unchanged. */
int rb_grow_array(void **items, size_t *cap, size_t need, size_t item_size);

/* A growable byte buffer for building file contents. */
typedef struct rb_buf {
    char *data;
    size_t len, cap;
    int failed; /* an allocation failed: contents are incomplete */
} rb_buf;

void rb_buf_append(rb_buf *b, const char *s, size_t n);
void rb_buf_puts(rb_buf *b, const char *s);
void rb_buf_printf(rb_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void rb_buf_free(rb_buf *b);

#endif
