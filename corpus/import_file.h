/*
 * import_file.h — an OpenAPI document imported as a routes file, as
 * `routebench corpus import` writes it: the table, its text (with a header
 * naming the document when it goes to a file), and the summary of the
 * import.  Nothing here prints.
 */
#ifndef RB_CORPUS_IMPORT_FILE_H
#define RB_CORPUS_IMPORT_FILE_H

#include "buf.h"
#include "openapi.h"
#include "table.h"

#include <stdbool.h>

/* Import the document at path into *t (free with rb_route_table_free) and
 * its routes file's text into text, with the header "imported from PATH
 * (SPEC VERSION, "TITLE") by routebench corpus import" and what the routes
 * are when header is true.  The errors of rb_openapi_import_file_with, a
 * route the file cannot carry (rb_route_table_check_text), RB_ENOMEM. */
int rb_openapi_import_text(const char *path, const rb_openapi_options *opt, bool header,
                           rb_route_table *t, rb_openapi_report *rep, rb_buf *text, rb_error *err);

/* The summary of an import of path, written to out (a file, or NULL: stdout): the
 * routes, the base path and where it came from, the other base paths, the
 * merged variants, templates, globs, renamed and skipped operations, the
 * fingerprint. */
void rb_openapi_import_summary(const rb_openapi_report *rep, const rb_route_table *t,
                               const char *path, const char *out, const rb_openapi_options *opt,
                               rb_buf *text);

#endif
