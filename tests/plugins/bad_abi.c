/*
 * bad_abi.c — a test plugin built for a router ABI newer than the host's:
 * loading it must fail with RB_EABI and a message naming the versions
 * (tests/test_plugins.c).
 */
#include "router_plugin.h"

static const rb_router_ops future_ops = {
    .abi_version = RB_ROUTER_ABI_VERSION + 1,
    .name = "future",
    .summary = "built for the next router ABI",
};

static const rb_router_ops *const routers[] = {&future_ops};

RB_PLUGIN_EXPORT const rb_router_ops *const *routebench_plugin_routers(size_t *count);

const rb_router_ops *const *routebench_plugin_routers(size_t *count)
{
    *count = 1;
    return routers;
}
