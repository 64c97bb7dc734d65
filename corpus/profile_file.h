/*
 * profile_file.h — profiles read from the files the commands name: a
 * routes file or a profile (JSON), with the OpenAPI hint when the file is
 * a document to import instead; and two such files compared.  Nothing
 * here prints.
 */
#ifndef RB_CORPUS_PROFILE_FILE_H
#define RB_CORPUS_PROFILE_FILE_H

#include "buf.h"
#include "profile.h"

#include <stdbool.h>

/* rb_profile_load, and on RB_EFORMAT the hint of rb_openapi_hint ("PATH:
 * this looks like an OpenAPI document: ...") when the file is one. */
int rb_profile_read(const char *path, rb_profile *out, bool *was_json, rb_error *err);

/* The profiles of the files a and b side by side (rb_profile_compare_text,
 * or _json when json) into out. */
int rb_profile_compare_files(const char *a, const char *b, bool json, rb_buf *out, rb_error *err);

/* A table's profile (named name) beside the file b's, as above. */
int rb_profile_compare_table(const rb_route_table *t, const char *name, const char *b, bool json,
                             rb_buf *out, rb_error *err);

#endif
