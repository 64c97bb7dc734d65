/*
 * router_list.c — the routers of a session (router_list.h).
 */
#include "router_list.h"
#include "bundle.h"
#include "harness.h"

#include <stdio.h>
#include <string.h>

int rb_router_list_every(const rb_plugins *plugins, bool limit, rb_router_add_fn add, void *ctx)
{
    int rc = 0;
    for (size_t i = 0; i < rb_registry_count() && rc == 0; i++)
        rc = add(ctx, rb_registry_at(i), rb_ops_name(rb_registry_at(i)));
    if (rc == 0 && limit && rb_registry_find("floor"))
        rc = add(ctx, &rb_bench_limit_ops, RB_LIMIT_NAME);
    for (size_t i = 0; plugins && i < rb_plugins_count(plugins) && rc == 0; i++) {
        char label[RB_BUNDLE_NAME];
        snprintf(label, sizeof label, "%s@%s", rb_ops_name(rb_plugins_ops(plugins, i)),
                 rb_plugins_lib(plugins, i));
        rc = add(ctx, rb_plugins_ops(plugins, i), label);
    }
    return rc;
}

int rb_router_list_names(const char *list, rb_router_name_fn add, void *ctx)
{
    for (const char *p = list;;) {
        size_t n = strcspn(p, ",");
        char name[RB_BUNDLE_NAME];
        if (n == 0 || n >= sizeof name) return RB_EINVAL;
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        int rc = add(ctx, name);
        if (rc != 0 || !p[n]) return rc;
        p += n + 1;
    }
}
