/*
 * plugin/entry.c — the plugin entry of librouters.so (CMake target
 * routebench_plugin): every built-in router of this build, exported through
 * RB_PLUGIN_SYMBOL, so another routebench can load this build's routers
 * (`routebench pair --a radix --b radix@build/librouters.so`).
 *
 * The library is linked with cmake/plugin.map, which keeps this function
 * and the commit stamp the only exported symbols: the routers' code inside it cannot interpose,
 * or be interposed by, a host or another build loaded next to it.
 */
#include "router_impl.h"

#define RB_PLUGIN_MAX 64

#ifndef RB_COMMIT
#define RB_COMMIT "unknown"
#endif

RB_PLUGIN_EXPORT const char *routebench_plugin_commit(void);

/* The commit this library was built from (CMake stamps it at configure
 * time); result bundles record it beside the library's hash
 * (RB_PLUGIN_COMMIT_SYMBOL, bench/plugins.h). */
RB_PLUGIN_EXPORT const char *routebench_plugin_commit(void)
{
    return RB_COMMIT;
}

/* Filled by the entry call (the host calls it once, at load). */
static const rb_router_ops *table[RB_PLUGIN_MAX];

RB_PLUGIN_EXPORT const rb_router_ops *const *routebench_plugin_routers(size_t *count)
{
    size_t n = rb_registry_count();
    if (n > RB_PLUGIN_MAX) n = RB_PLUGIN_MAX;
    for (size_t i = 0; i < n; i++) table[i] = rb_registry_at(i);
    *count = n;
    return table;
}
