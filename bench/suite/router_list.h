/*
 * router_list.h — which routers a session covers: every router (the
 * registry's, the limit, the plugins'), or the names of a comma-separated
 * list.  The caller adds each one (its callback), so that a name is
 * resolved, labelled and refused where the caller's messages are.
 */
#ifndef RB_BENCH_ROUTER_LIST_H
#define RB_BENCH_ROUTER_LIST_H

#include "plugins.h"
#include "router.h"

#include <stdbool.h>

/* Add one router; nonzero stops the list (and is returned). */
typedef int (*rb_router_add_fn)(void *ctx, const rb_router_ops *ops, const char *label);
typedef int (*rb_router_name_fn)(void *ctx, const char *name);

/* Every registered router by its name; then, with limit and when floor is
 * built, the limit (a reference row); then every router of plugins (may
 * be NULL) as NAME@LIB.  0, or the first nonzero add. */
int rb_router_list_every(const rb_plugins *plugins, bool limit, rb_router_add_fn add, void *ctx);

/* Each name of list, in order.  RB_EINVAL at the first name that is empty
 * or too long for a label (the names before it were added), else 0 or the
 * first nonzero add. */
int rb_router_list_names(const char *list, rb_router_name_fn add, void *ctx);

#endif
