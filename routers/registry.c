/*
 * registry.c — the table of built-in router implementations, found by name.
 * A new router is added here (one line) and is then listed by the CLI and
 * tested by the conformance suite without further work.
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
#ifdef RB_HAVE_R3
extern const rb_router_ops rb__r3_ops; /* peers/r3.c, built when libr3 is found */
#endif

static const rb_router_ops *const builtin[] = {
    &rb__linear_ops,
    &rb__radix_ops,
    &rb__glob_ops,
    &rb__hashseg_ops,
    &rb__ctrie_ops,
    &rb__auto_ops,
    &rb__floor_ops,
#ifdef RB_HAVE_R3
    &rb__r3_ops,
#endif
};

size_t rb_registry_count(void)
{
    return sizeof builtin / sizeof builtin[0];
}

const rb_router_ops *rb_registry_at(size_t i)
{
    return i < rb_registry_count() ? builtin[i] : NULL;
}

const rb_router_ops *rb_registry_find(const char *name)
{
    for (size_t i = 0; i < rb_registry_count(); i++) {
        if (strcmp(builtin[i]->name, name) == 0) return builtin[i];
    }
    return NULL;
}
