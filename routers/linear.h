/*
 * linear.h — private debug interface of the linear reference router
 * (routers/linear.c), for tests only.  Users reach it through the registry.
 */
#ifndef RB_LINEAR_H
#define RB_LINEAR_H

#include "router_impl.h"

extern const rb_router_ops rb__linear_ops;

/* The longest probe sequence of the first-segment index (<= RB__PROBE_LIMIT). */
uint32_t rb__linear_max_probe(const void *impl);

#endif
