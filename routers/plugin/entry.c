/*
 * plugin/entry.c — the plugin entry of librouters.so (CMake target
 * routebench_plugin): every built-in router of this build, exported through
 * RB_PLUGIN_SYMBOL, so another routebench can load this build's routers
 * (`routebench pair --a radix --b radix@build/librouters.so`).
 *
 * The library is linked with cmake/plugin.map, which keeps these two
 * functions (the entry and the build stamp, RB_PLUGIN_BUILD_SYMBOL) the
 * only exported symbols: the routers' code inside it cannot interpose, or
 * be interposed by, a host or another build loaded next to it.
 */
#include "build_stamp.h"
#include "router_impl.h"

#define RB_PLUGIN_MAX 64

RB_PLUGIN_EXPORT const rb_router_ops *const *routebench_plugin_routers(size_t *count);
RB_PLUGIN_EXPORT const char *routebench_plugin_build(void);

/* Filled by the entry call (the host calls it once, at load). */
static const rb_router_ops *table[RB_PLUGIN_MAX];

const rb_router_ops *const *routebench_plugin_routers(size_t *count)
{
    size_t n = rb_registry_count();
    if (n > RB_PLUGIN_MAX) n = RB_PLUGIN_MAX;
    for (size_t i = 0; i < n; i++) table[i] = rb_registry_at(i);
    *count = n;
    return table;
}

/* RB_PLUGIN_BUILD_SYMBOL: the commit this library was built from. */
const char *routebench_plugin_build(void)
{
    return rb__build_commit();
}
