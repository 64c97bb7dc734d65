/*
 * radix.h — private debug interface of the radix router (routers/radix.c),
 * for tests only.  Users reach the router through the registry ("radix").
 */
#ifndef RB_RADIX_H
#define RB_RADIX_H

#include "router_impl.h"

extern const rb_router_ops rb__radix_ops;

/* The ops table's check (rb__radix_ops.check) verifies every structural
 * invariant listed at the top of radix.c, on the tree being built (before
 * build: radix's check accepts that too) or on the compacted arrays
 * (after).  impl is what rb__radix_ops.create returned.  Returns RB_OK,
 * RB_EINVAL with err describing the first violation, or RB_ENOMEM when the
 * scratch bitmap (one bit per node, from the router's allocator) is
 * unavailable. */

#endif
