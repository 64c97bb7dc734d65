/*
 * catalog.h — what a session can measure, as `routebench list` shows it:
 * the registry's routers with their features and summaries, `compiled`
 * (generated for the table), the routers of plugin libraries (NAME@LIB),
 * the built-in peer runners (built or not, and what a missing one needs)
 * and the shipped corpora.  As text (one router a line, its summary
 * wrapped before column 100) or as the JSON document of `list --json`
 * (schema routebench-list, docs/measurement.md).  Nothing here prints.
 */
#ifndef RB_BENCH_CATALOG_H
#define RB_BENCH_CATALOG_H

#include "buf.h"
#include "plugins.h"

void rb_catalog_text(const rb_plugins *plugins, rb_buf *out);
/* The JSON document, ending in a newline; RB_ENOMEM. */
int rb_catalog_json(const rb_plugins *plugins, rb_buf *out, rb_error *err);

#endif
