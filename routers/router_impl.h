/*
 * router_impl.h — the private side of the router layer, for routers/ and
 * the tests only (never installed; tests/layers.sh checks who includes
 * it): the route set's pieces and test hooks.
 * What the rest of routebench's kit may use of the inside (the pattern
 * parser, the ops table and handle) is router_kit.h, which this header
 * includes; the public side of writing a router (the ops table, parsed
 * routes, ABI, plugin entry) is router_plugin.h.
 */
#ifndef RB_ROUTER_IMPL_H
#define RB_ROUTER_IMPL_H

#include "router_kit.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the front end's pieces --------------------------------------------- */

/* Route i of a set as an implementation's add receives it: *p and
 * segs[0, nsegs) (room for rb__route_set_max_segs(s)) are filled, and
 * *route points at p.  Valid while s is unchanged. */
void rb__route_set_route(const rb_route_set *s, size_t i, rb_segment *segs, rb_pattern *p,
                         rb_route *route);
uint32_t rb__route_set_max_segs(const rb_route_set *s);

/* ---- the handle ------------------------------------------------------------ */

/* The longest probe sequence of the front end's (method, shape) set, which
 * lives from create to build (0 after build): a test hook. */
uint32_t rb__router_shape_probe(const rb_router *r);

#ifdef __cplusplus
}
#endif
#endif
