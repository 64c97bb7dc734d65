/*
 * auto.h — the auto router's choice as data, for the benchmark, and its
 * private test hook (routers/auto.c).  Not part of the public API.
 */
#ifndef RB_ROUTERS_AUTO_H
#define RB_ROUTERS_AUTO_H

#include "router_impl.h"

extern const rb_router_ops rb__auto_ops;

/* Narrow the hashes of the router auto chooses to their low `bits` bits
 * (rb__hashseg_set_hash_bits, rb__glob_set_hash_bits), so that a test can
 * make the choice refuse the table whatever its seed and see auto fall
 * back.  Between create and build; RB_ESTATE after build. */
int rb__auto_set_hash_bits(void *impl, unsigned bits);

/* The name of the router that auto, built, chose for impl's table (its first
 * choice, or the one it fell back to: the router answering the lookups);
 * NULL before build. */
const char *rb__auto_chosen(const void *impl);

/* The same for a router handle, so that the benchmark never reads the
 * choice out of describe()'s prose: NULL when r is NULL, is not auto, or is
 * not built yet.  Inline, in the caller: auto.c never calls router.c. */
static inline const char *rb__auto_choice(const rb_router *r)
{
    const rb_router_ops *ops = r ? rb__router_ops(r) : NULL;
    return ops && ops->build == rb__auto_ops.build ? rb__auto_chosen(rb__router_impl(r)) : NULL;
}

#endif
