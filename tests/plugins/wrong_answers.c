/*
 * wrong_answers.c — a test plugin of routers that are right about the
 * outcome and the route id, and wrong about the rest: the built-in linear
 * router (linked in statically) with its answer changed after each lookup.
 *
 *   wrongspan   the first capture one byte longer
 *   wrongmask   TRACE added to the 405 allowed-methods mask
 *   peerspan    wrongspan declared a peer (RB_FEAT_PEER): measured and
 *               its disagreements counted, not failed
 *
 * A check that compares only EXPECTED (outcome and route id) passes them
 * all; run, pair and verify must compare every answer with linear's
 * (tests/test_outputs.c, regression 48).
 */
#include "router_plugin.h"

extern const rb_router_ops rb__linear_ops;

static int lookup_wrong_span(const void *impl, int method, const char *path, size_t len,
                             rb_match *m)
{
    int outcome = rb__linear_ops.lookup(impl, method, path, len, m);
    if (outcome == RB_FOUND && m->nparams > 0) m->params[0].len++;
    return outcome;
}

static int lookup_wrong_mask(const void *impl, int method, const char *path, size_t len,
                             rb_match *m)
{
    int outcome = rb__linear_ops.lookup(impl, method, path, len, m);
    if (outcome == RB_METHOD_NOT_ALLOWED) m->allowed |= RB_METHOD_BIT(RB_TRACE);
    return outcome;
}

static rb_router_ops wrongspan, wrongmask, peerspan;
static const rb_router_ops *table[3];

RB_PLUGIN_EXPORT const rb_router_ops *const *routebench_plugin_routers(size_t *count);

const rb_router_ops *const *routebench_plugin_routers(size_t *count)
{
    wrongspan = rb__linear_ops;
    wrongspan.name = "wrongspan";
    wrongspan.summary = "linear with the first capture one byte too long";
    wrongspan.lookup = lookup_wrong_span;
    wrongmask = rb__linear_ops;
    wrongmask.name = "wrongmask";
    wrongmask.summary = "linear with TRACE added to every 405 mask";
    wrongmask.lookup = lookup_wrong_mask;
    peerspan = wrongspan;
    peerspan.name = "peerspan";
    peerspan.summary = "wrongspan, declared a peer";
    peerspan.features |= RB_FEAT_PEER;
    table[0] = &wrongspan;
    table[1] = &wrongmask;
    table[2] = &peerspan;
    *count = 3;
    return table;
}
