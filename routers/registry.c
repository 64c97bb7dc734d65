/*
 * registry.c — the table of built-in router implementations, found by name.
 * A new router is added here (one line) and is then listed by the CLI and
 * tested by the conformance suite without further work.
 *
 * Peers (routers/peers/, adapters around third-party routers) are linked
 * into routebench's own router library when their library is found, and
 * never into the installed one.  They are referred to weakly, so this one
 * compiled registry serves both: a peer that is not linked in has address
 * NULL and is left out.
 */
#include "router_impl.h"

#include <string.h>

extern const rb_router_ops rb__linear_ops;
extern const rb_router_ops rb__radix_ops;
extern const rb_router_ops rb__glob_ops;
extern const rb_router_ops rb__hashseg_ops;
extern const rb_router_ops rb__ctrie_ops;
extern const rb_router_ops rb__auto_ops;
extern const rb_router_ops rb__floor_ops;
/* peers/r3.c, linked in when libr3 is found */
extern const rb_router_ops rb__r3_ops __attribute__((weak, visibility("hidden")));

static const rb_router_ops *const builtin[] = {
    &rb__linear_ops, &rb__radix_ops, &rb__glob_ops,  &rb__hashseg_ops,
    &rb__ctrie_ops,  &rb__auto_ops,  &rb__floor_ops, &rb__r3_ops,
};
#define NBUILTIN (sizeof builtin / sizeof builtin[0])

size_t rb_registry_count(void)
{
    size_t n = 0;
    for (size_t i = 0; i < NBUILTIN; i++) n += builtin[i] != NULL;
    return n;
}

const rb_router_ops *rb_registry_at(size_t i)
{
    for (size_t k = 0; k < NBUILTIN; k++) {
        if (builtin[k] && i-- == 0) return builtin[k];
    }
    return NULL;
}

const rb_router_ops *rb_registry_find(const char *name)
{
    for (size_t k = 0; k < NBUILTIN; k++) {
        if (builtin[k] && strcmp(builtin[k]->name, name) == 0) return builtin[k];
    }
    return NULL;
}
