/*
 * suite_routers.h — a session's routers from the specs a user writes:
 * NAME (a router of the registry, `limit`, `compiled`, a peer runner given
 * with --peer, a built-in peer runner), NAME@LIB (a plugin's router); the
 * built-in peer runners of some languages; and, once the routers are
 * named, the peers joined to them and the scenarios completed.  Every one
 * is a router to the suite: nothing here treats one kind apart beyond
 * finding it.  Nothing here prints.
 */
#ifndef RB_BENCH_SUITE_ROUTERS_H
#define RB_BENCH_SUITE_ROUTERS_H

#include "plugins.h"
#include "suite.h"

#include <stddef.h>

/* The router of spec: `limit`, `compiled`, or NAME / NAME@LIB (plugins.h,
 * rb_router_spec_resolve); its error names what is missing. */
int rb_suite_resolve(rb_plugins *p, const char *spec, const rb_router_ops **ops, rb_error *err);

/* Add the router of spec to s: a peer runner of s (--peer NAME=...) or a
 * built-in one by its name, else as rb_suite_resolve finds it, labelled by
 * its name when it is one of ours and by spec otherwise (NAME@LIB).  A
 * router already in s is not added twice. */
int rb_suite_add_spec(rb_suite *s, const char *spec, rb_error *err);

/* The built-in peer runners of the languages of langs (comma-separated,
 * "go,rust"; NULL: every language) that are built, added to s's peers;
 * note (may be NULL) is told why each one of them is not.  Returns how many
 * runners are of those languages, built or not. */
size_t rb_suite_add_builtin_peers(rb_suite *s, const char *langs,
                                  void (*note)(void *ctx, const char *why), void *ctx);

/* After the routers are named: s's peer runners join its routers (after
 * the baseline), routes and requests (both or neither) become a scenario,
 * and with no scenario named the default suite is measured. */
int rb_suite_finish(rb_suite *s, const char *routes, const char *requests, rb_error *err);

#endif
