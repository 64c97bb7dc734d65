/*
 * check_text.h — the whole report of `routebench corpus check` for one
 * table, as text or JSON: check.h's report (the text here, the JSON of
 * check_report.c), the --min-unique line, the verdict, and the table's
 * profile beside another's (--against).  Nothing here prints.
 */
#ifndef RB_CORPUS_CHECK_TEXT_H
#define RB_CORPUS_CHECK_TEXT_H

#include "buf.h"
#include "check.h"

#include <stdbool.h>

/* Examples a count lists in the text (--json lists all). */
#define RB_CHECK_TEXT_SHOW 20

/* What a check reports besides the table: min_unique (0: none), against
 * (a routes file or profile to compare with, or NULL), json. */
typedef struct rb_check_text_options {
    size_t min_unique;
    const char *against;
    bool json;
} rb_check_text_options;

/* The report of t (read from path) into out: the text, the --min-unique
 * line and the verdict, then "profile against B" and the comparison; or
 * the JSON of check_report.c, {"check": ..., "against": ...} with against.
 * RB_ENOMEM; an error of the comparison is prefixed "--against: ". */
int rb_check_text(const char *path, const rb_route_table *t, const rb_check_report *r,
                  const rb_check_text_options *opt, rb_buf *out, rb_error *err);

#endif
