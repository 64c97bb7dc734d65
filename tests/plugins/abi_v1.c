/*
 * abi_v1.c — a test plugin built for router ABI version 1, the previous
 * version: its ops table is declared here with the version 1 layout (no
 * `check`, the field version 2 appended), so the host must read no further
 * than that.  The functions are those of the built-in linear router
 * (linked in statically), so the plugin is a real router that verify can
 * hold against linear (tests/test_plugins.c).
 */
#include "router_plugin.h"

/* struct rb_router_ops as ABI version 1 declared it. */
typedef struct ops_v1 {
    uint32_t abi_version;
    const char *name;
    const char *summary;
    unsigned features;
    int (*create)(const rb_config *config, void **out_impl, rb_error *err);
    int (*add)(void *impl, const rb_route *route, rb_error *err);
    int (*build)(void *impl, rb_error *err);
    int (*lookup)(const void *impl, int method, const char *path, size_t len, rb_match *m);
    size_t (*memory)(const void *impl);
    void (*destroy)(void *impl);
    const char *(*describe)(const void *impl);
} ops_v1;

extern const rb_router_ops rb__linear_ops;

static ops_v1 linear_v1;
static const rb_router_ops *table[1];

RB_PLUGIN_EXPORT const rb_router_ops *const *routebench_plugin_routers(size_t *count);

const rb_router_ops *const *routebench_plugin_routers(size_t *count)
{
    const rb_router_ops *l = &rb__linear_ops;
    linear_v1 = (ops_v1){1,           "linear_v1", "linear, through a version 1 ops table",
                         l->features, l->create,   l->add,
                         l->build,    l->lookup,   l->memory,
                         l->destroy,  l->describe};
    /* what a v1 plugin hands the host: a pointer to the shorter table */
    table[0] = (const rb_router_ops *)(const void *)&linear_v1;
    *count = 1;
    return table;
}
