/*
 * limit.h — the limit of a request table: an exact-match router holding
 * every path the table's requests find a route for.
 *
 * A router that must read the request path does at least what an
 * exact-match lookup of that path does: hash (or scan) its bytes once,
 * probe once, compare once.  Building `floor` (routers/floor.c) over the
 * requested paths themselves, each as a static route, measures exactly
 * that on the same requests: the lower bound every router of a scenario is
 * compared with ("2.9x the limit"), on param, template and mixed tables as
 * well as static ones.  docs/measurement.md, "The limit", says why it is a
 * lower bound and what it leaves out.
 *
 *     requests (EXPECTED)          limit router (static routes)
 *     GET  /users/7       1        GET  /users/7       id 1
 *     GET  /users/me      2        GET  /users/me      id 2
 *     POST /users/7/posts 3        POST /users/7/posts id 3
 *     GET  /users/7       1        (a repeat: added once)
 *     GET  /nope         -1        (a miss: not added; its lookup misses)
 *
 * Each hit (method, path) becomes the static route "METHOD PATH" with the
 * route id the request expects, so a hit's answer names the same route as
 * the real table's (without its captures: an exact match has none).
 */
#ifndef RB_CORPUS_LIMIT_H
#define RB_CORPUS_LIMIT_H

#include "table.h"

/* The name of the limit's row in a benchmark's results. */
#define RB_LIMIT_NAME "limit"

/* Create router `ops` (an exact-match router such as floor: it must accept
 * static routes), add every distinct (method, path) of q whose EXPECTED is
 * a route id, as a static route with that id, and build it.  *npaths gets
 * the number of routes added.  A requested path that does not read as a
 * static pattern (a segment such as ":x" or "{x}") is refused by the
 * router: the error names the request's line (err->line) and the path.
 * On failure *out is NULL. */
int rb_limit_build(const rb_request_table *q, const rb_router_ops *ops, const rb_config *config,
                   rb_router **out, size_t *npaths, rb_error *err);

#endif
