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

/* Check every invariant listed at the top of floor.c.  impl is what
 * rb__floor_ops.create returned (rb__router_impl of a handle).  Returns
 * RB_OK, or RB_EINVAL with err describing the first violation. */
int rb__floor_check(const void *impl, rb_error *err);

#endif
