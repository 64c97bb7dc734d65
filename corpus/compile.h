/*
 * compile.h — a router generated for a fixed table: C source specialised
 * to one route table, as gperf does for keywords and re2c for lexers
 * (`routebench compile`, docs/compile.md).
 *
 * The emitted file is self-contained C11 (standard headers only) and
 * exposes, for a prefix P (default rb_compiled):
 *
 *     int P_lookup(int method, const char *path, size_t len, P_match *m);
 *
 * with the answers of `linear` on the same table (docs/design.md, "Route
 * semantics"): outcome 200 / 404 / 405, the route id, the 405 mask, the
 * captures as spans in pattern order.  Compiled with -DRB_COMPILED_PLUGIN
 * it also defines a routebench plugin (router_plugin.h) named "compiled"
 * whose add() accepts exactly the compiled table's routes (method and
 * shape) and whose build() refuses any other table ("compiled for a
 * different table: ...").
 *
 * Supported: static segments, params, templates and catch-alls.  Globs and
 * `**` are refused (RB_EUNSUPPORTED, the message naming the route and the
 * offset of the segment), never mis-routed.  Nothing here prints; errors
 * are values.
 */
#ifndef RB_CORPUS_COMPILE_H
#define RB_CORPUS_COMPILE_H

#include "buf.h"
#include "router_kit.h"
#include "table.h"

#define RB_COMPILE_DEFAULT_PREFIX "rb_compiled"
/* The longest prefix (a C identifier). */
#define RB_COMPILE_PREFIX_MAX 40u

/* Append to out the C source of a router for exactly routes[0, n) (parsed
 * patterns, as add() receives them; ids as the lookup should report
 * them, distinct).  prefix: a C identifier of at most
 * RB_COMPILE_PREFIX_MAX bytes (NULL: the default).  RB_EINVAL (bad prefix,
 * no routes, a repeated id), RB_EUNSUPPORTED (a glob or `**`: the message
 * names the route, err->offset is the segment's offset in its pattern),
 * RB_ENOMEM.  On failure out may hold part of the source. */
int rb_compile_routes(const rb_route *routes, size_t n, const char *prefix, rb_buf *out,
                      rb_error *err);

/* The route table t (read from name) checked as rb_route_table_set checks
 * it (methods, patterns, duplicates: the message names name:line), then
 * compiled with ids 0..count-1 in table order.  A refusal names
 * name:line too. */
int rb_compile_table(const rb_route_table *t, const char *name, const char *prefix, rb_buf *out,
                     rb_error *err);

#endif
