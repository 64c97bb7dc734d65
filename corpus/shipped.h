/*
 * shipped.h — the public route tables shipped in corpus/data/ (see its
 * README.md for provenance), found by name ("github", "static", ...).
 */
#ifndef RB_CORPUS_SHIPPED_H
#define RB_CORPUS_SHIPPED_H

#include <stddef.h>

/* Names of the shipped corpora, in a fixed order. */
size_t rb_shipped_count(void);
const char *rb_shipped_name(size_t i);

/* Write "<data dir>/<name>.<ext>" into buf; returns buf, or NULL when the
 * name is unknown or buf is too small.  The data directory is
 * $ROUTEBENCH_DATA when set, else the source tree's corpus/data. */
const char *rb_shipped_path(const char *name, const char *ext, char *buf, size_t cap);

#endif
