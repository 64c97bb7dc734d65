/*
 * json_out.h — a built cJSON document printed into an rb_buf: the one
 * ending of every JSON writer of corpus/ and bench/ (a profile, a corpus
 * check, verify's runs, `list --json`).
 */
#ifndef RB_CORPUS_JSON_OUT_H
#define RB_CORPUS_JSON_OUT_H

#include "base.h"
#include "buf.h"

#include <cjson/cJSON.h>

/* Print o (which may be NULL: memory ran out building it) pretty into out,
 * ending in a newline, and delete it.  RB_ENOMEM says "out of memory
 * <doing>" ("out of memory" when doing is NULL). */
int rb__json_out(cJSON *o, rb_buf *out, const char *doing, rb_error *err);

#endif
