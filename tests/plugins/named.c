/*
 * named.c — a test plugin whose one router is the built-in linear router
 * under another name: with RB_TEST_HOSTILE_NAME defined, a name with a
 * newline and an escape sequence, which the host must refuse; else the
 * name of a built-in router, which the host must warn about; with
 * RB_TEST_HOSTILE_SUMMARY, a good name with a summary of two lines, an
 * escape sequence and a '|', which the host must refuse too
 * (tests/test_plugins.c).
 */
#include "router_plugin.h"

extern const rb_router_ops rb__linear_ops;

#ifdef RB_TEST_HOSTILE_NAME
#define NAME "evil\nname\x1b[31m"
#elif defined RB_TEST_HOSTILE_SUMMARY
#define NAME    "badsummary"
#define SUMMARY "one line\n| two | lines |\x1b[31m"
#else
#define NAME "radix"
#endif

static rb_router_ops named;
static const rb_router_ops *table[1];

RB_PLUGIN_EXPORT const rb_router_ops *const *routebench_plugin_routers(size_t *count);

const rb_router_ops *const *routebench_plugin_routers(size_t *count)
{
    named = rb__linear_ops;
    named.name = NAME;
#ifdef SUMMARY
    named.summary = SUMMARY;
#endif
    table[0] = &named;
    *count = 1;
    return table;
}
