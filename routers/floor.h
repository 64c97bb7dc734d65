/*
 * floor.h — private debug interface of the floor reference (routers/floor.c),
 * for tests only.  Users reach it through the registry ("floor").
 */
#ifndef RB_FLOOR_H
#define RB_FLOOR_H

#include "router_impl.h"

extern const rb_router_ops rb__floor_ops;

/* The longest probe sequence of the built table (UINT32_MAX before build). */
uint32_t rb__floor_max_probe(const void *impl);

/* The invariants listed at the top of floor.c are checked by the ops
 * table's check (rb_router_check). */

#endif
