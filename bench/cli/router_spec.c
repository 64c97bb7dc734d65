/*
 * router_spec.c — the CLI side of plugins: --router-lib and router specs
 * (NAME, NAME@LIB), with messages for the user.
 */
#include "cli.h"

#include <stdio.h>

bool cli_router_lib(rb_plugins *p, const char *cmd, const char *path)
{
    rb_error err;
    if (rb_plugins_load(p, path, &err) == RB_OK) return true;
    fprintf(stderr, "routebench %s: --router-lib %s: %s\n", cmd, path, err.message);
    return false;
}

const rb_router_ops *cli_router(rb_plugins *p, const char *cmd, const char *spec)
{
    const rb_router_ops *ops;
    rb_error err;
    if (rb_router_spec_resolve(p, spec, &ops, &err) == RB_OK) return ops;
    fprintf(stderr, "routebench %s: %s\n", cmd, err.message);
    return NULL;
}
