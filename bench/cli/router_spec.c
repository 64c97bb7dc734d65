/*
 * router_spec.c — the CLI side of plugins: --router-lib and router specs
 * (NAME, NAME@LIB), with messages for the user.
 */
#include "cli.h"

#include <stdio.h>

int cli_take_router_lib(void *plugins, const char *path, rb_error *err)
{
    return rb_plugins_load(plugins, path, err);
}

const rb_router_ops *cli_router(rb_plugins *p, const char *cmd, const char *spec)
{
    const rb_router_ops *ops;
    rb_error err;
    if (rb_router_spec_resolve(p, spec, &ops, &err) == RB_OK) return ops;
    cli_error(cmd, "%s", err.message);
    return NULL;
}
