/*
 * profile_internal.h — what profile_json.c and profile_report.c share, kept
 * out of profile.h so that its users need not see cJSON.
 */
#ifndef RB_CORPUS_PROFILE_INTERNAL_H
#define RB_CORPUS_PROFILE_INTERNAL_H

#include "json_out.h"
#include "profile.h"

#include <cjson/cJSON.h>

#endif
