/*
 * openapi_yaml.h — internal to the OpenAPI importer: a YAML document as a
 * cJSON tree (openapi_yaml.c says how YAML maps onto it).
 */
#ifndef RB_CORPUS_OPENAPI_YAML_H
#define RB_CORPUS_OPENAPI_YAML_H

#include "router.h"

#include <cjson/cJSON.h>

/* Parse the YAML text data[0, len) (name for messages) into *out (free
 * with cJSON_Delete).  RB_EFORMAT naming "name:line:column: what" for
 * malformed YAML, a duplicate key, an unknown alias, a second document or
 * too many nodes; RB_ENOMEM. */
int rb__openapi_yaml_parse(const char *name, const char *data, size_t len, cJSON **out,
                           rb_error *err);

#endif
