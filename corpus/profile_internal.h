/*
 * profile_internal.h — what profile_json.c and profile_report.c share, kept
 * out of profile.h so that its users need not see cJSON.
 */
#ifndef RB_CORPUS_PROFILE_INTERNAL_H
#define RB_CORPUS_PROFILE_INTERNAL_H

#include "profile.h"

#include <cjson/cJSON.h>

/* Print o (which may be NULL: memory ran out building it) pretty into out,
 * ending in a newline, and delete it.  RB_ENOMEM says "out of memory
 * <doing>". */
int rb__profile_json_out(cJSON *o, rb_buf *out, const char *doing, rb_error *err);

#endif
