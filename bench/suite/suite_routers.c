/*
 * suite_routers.c — a session's routers from a user's specs
 * (suite_routers.h).
 */
#include "suite_routers.h"

#include "compiled.h"
#include "ecosystem.h"
#include "harness.h"
#include "limit.h"

#include <string.h>

int rb_suite_resolve(rb_plugins *p, const char *spec, const rb_router_ops **ops, rb_error *err)
{
    if (strcmp(spec, RB_LIMIT_NAME) == 0) { /* a reference */
        *ops = &rb_bench_limit_ops;
        return RB_OK;
    }
    if (strcmp(spec, RB_COMPILED_NAME) == 0) {
        *ops = &rb_bench_compiled_ops;
        return RB_OK;
    }
    return rb_router_spec_resolve(p, spec, ops, err);
}

int rb_suite_add_spec(rb_suite *s, const char *spec, rb_error *err)
{
    if (!strchr(spec, '@')) { /* a peer runner's name: one of --peer, or built in? */
        const rb_peer_spec *known = rb_suite_peer(s, spec);
        if (known) return rb_suite_add_ops(s, &known->ops, known->name, err);
        rb_peer_spec peer;
        int rc = rb_peer_builtin(spec, NULL, &peer, err);
        if (rc == RB_OK) rc = rb_suite_add_peer(s, &peer, err);
        if (rc == RB_OK) {
            const rb_peer_spec *p = rb_suite_peer(s, peer.name);
            return rb_suite_add_ops(s, &p->ops, p->name, err);
        }
        if (rc != RB_ENOTFOUND) return rc;
    }
    const rb_router_ops *ops;
    int rc = rb_suite_resolve(&s->plugins, spec, &ops, err);
    if (rc < 0) return rc;
    bool builtin = rb_registry_find(rb_ops_name(ops)) == ops;
    return rb_suite_add_ops(s, ops, builtin ? rb_ops_name(ops) : spec, err);
}

size_t rb_suite_add_builtin_peers(rb_suite *s, const char *langs,
                                  void (*note)(void *ctx, const char *why), void *ctx)
{
    size_t matched = 0;
    for (size_t i = 0; i < rb_peer_builtin_count(); i++) {
        rb_peer_spec spec;
        rb_error err;
        char lang[16];
        int rc = rb_peer_builtin(rb_peer_builtin_name(i), NULL, &spec, &err);
        rb_ecosystem_language_of(spec.summary, lang, sizeof lang);
        if (langs && !rb_ecosystem_language_in(lang, langs)) continue;
        matched++;
        if ((rc < 0 || rb_suite_add_peer(s, &spec, &err) < 0) && note) note(ctx, err.message);
    }
    return matched;
}

int rb_suite_finish(rb_suite *s, const char *routes, const char *requests, rb_error *err)
{
    for (size_t k = 0; k < s->npeers; k++) {
        int rc = rb_suite_add_ops(s, &s->peers[k].ops, s->peers[k].name, err);
        if (rc < 0) return rc;
    }
    if (routes) {
        int rc = rb_scenario_list_add_files(&s->scenarios, routes, requests, err);
        if (rc < 0) return rc;
    }
    return s->scenarios.n ? RB_OK : rb_scenario_list_parse(&s->scenarios, "default", err);
}
