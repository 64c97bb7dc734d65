/*
 * auto.h — private test hook of the auto router (routers/auto.c).  Not part
 * of the public API.
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

#endif
