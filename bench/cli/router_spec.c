/*
 * router_spec.c — the CLI side of plugins: --router-lib and router specs
 * (NAME, NAME@LIB), with messages for the user.
 */
#include "cli.h"
#include "suite_routers.h"

#include <stdio.h>
#include <string.h>

int cli_take_router_lib(void *plugins, const char *path, rb_error *err)
{
    rb_plugins *p = plugins;
    size_t before = rb_plugins_count(p);
    int rc = rb_plugins_load(p, path, err);
    for (size_t i = before; rc == RB_OK && i < rb_plugins_count(p); i++) {
        const char *shadowed = rb_plugins_shadowed(p, i);
        if (shadowed)
            fprintf(stderr,
                    "routebench: warning: %s names its router '%s' like %s, which that name "
                    "means: name this one %s@%s\n",
                    path, rb_ops_name(rb_plugins_ops(p, i)), shadowed,
                    rb_ops_name(rb_plugins_ops(p, i)), rb_plugins_lib(p, i));
    }
    return rc;
}

const rb_router_ops *cli_router(rb_plugins *p, const char *cmd, const char *spec)
{
    const rb_router_ops *ops;
    rb_error err;
    if (rb_suite_resolve(p, spec, &ops, &err) == RB_OK) return ops;
    cli_error(cmd, "%s", err.message);
    return NULL;
}
