/*
 * nop_router.c — a test plugin: the built-in hashseg with RB_TEST_NOPS
 * extra `nop` instructions after every lookup, built three times (0, 1 and
 * 30 nops) so that tests/test_callgrind.c can show that --metric
 * instructions sees a change of one instruction per lookup, and always
 * catches one of about 5% (30 instructions on hashseg's ~570 on github).
 * Test code: the ops table is filled once at load (plugin state).
 */
#include "router_plugin.h"

#ifndef RB_TEST_NOPS
#define RB_TEST_NOPS 0
#endif
#define RB_STR2(x) #x
#define RB_STR(x)  RB_STR2(x)

RB_PLUGIN_EXPORT const rb_router_ops *const *routebench_plugin_routers(size_t *count);

static const rb_router_ops *inner;
static rb_router_ops ops;
static const rb_router_ops *table[1];

static int nop_lookup(const void *impl, int method, const char *path, size_t len, rb_match *m)
{
    int outcome = inner->lookup(impl, method, path, len, m);
    /* exactly RB_TEST_NOPS instructions (none for 0); the barrier keeps
     * the call from becoming a tail call in every build alike */
    __asm__ volatile(".rept " RB_STR(RB_TEST_NOPS) "\n\tnop\n\t.endr" ::: "memory");
    return outcome;
}

RB_PLUGIN_EXPORT const rb_router_ops *const *routebench_plugin_routers(size_t *count)
{
    inner = rb_registry_find("hashseg");
    ops = *inner;
    ops.name = "nophash";
    ops.summary = "test: hashseg plus RB_TEST_NOPS nops per lookup";
    ops.lookup = nop_lookup;
    table[0] = &ops;
    *count = 1;
    return table;
}
