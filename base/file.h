/*
 * file.h — whole-file reads and atomic writes (temp file in the same
 * directory, fsync, rename), so an output file is either the old one or the
 * complete new one, never a torn mixture.
 */
#ifndef RB_BASE_FILE_H
#define RB_BASE_FILE_H

#include "base.h"

/* Read the whole file; *data is malloc'ed with a NUL after *len bytes.
 * RB_EIO (the message names the path and the reason) or RB_ENOMEM. */
int rb_file_read(const char *path, char **data, size_t *len, rb_error *err);

/* Replace path with data[0, len) atomically (mode 0644).  RB_EIO naming the
 * path; on failure the old file, if any, is untouched. */
int rb_file_write_atomic(const char *path, const char *data, size_t len, rb_error *err);

#endif
