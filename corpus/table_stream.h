/*
 * table_stream.h — a route table read from an open stream (stdin for
 * `routebench compile --routes -`), up to a size limit, then parsed like a
 * file (table.h).
 */
#ifndef RB_CORPUS_TABLE_STREAM_H
#define RB_CORPUS_TABLE_STREAM_H

#include "table.h"

#include <stdio.h>

/* Read f to its end and parse it as a routes file called name (in every
 * message).  RB_ELIMIT past max bytes ("NAME: more than MAX bytes of
 * routes"), RB_EIO on a read error, RB_ENOMEM, or the parser's error. */
int rb_route_table_read_stream(FILE *f, const char *name, size_t max, rb_route_table *out,
                               rb_error *err);

#endif
