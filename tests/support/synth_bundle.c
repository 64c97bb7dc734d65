/*
 * synth_bundle.c — synthetic bundles for the tests (synth_bundle.h).
 */
#include "synth_bundle.h"

#include "router.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

void synth_bundle(rb_bundle *b, const synth_row *rows, size_t n)
{
    rb_bundle_init(b);
    snprintf(b->baseline, sizeof b->baseline, "%s", rows[0].name);
    b->trials = SYNTH_TRIALS;
    b->bootstrap.level = 0.95;
    snprintf(b->command, sizeof b->command, "routebench choose --routes t.routes");
    for (size_t r = 0; r < n; r++)
        cr_assert_eq(rb_bundle_add_router(b, rows[r].name,
                                          rows[r].summary ? rows[r].summary : "a router",
                                          RB_FEAT_PARAMS),
                     RB_OK);
    for (size_t i = 0; i < b->nrouters; i++)
        if (rows[i].summary && strncmp(rows[i].summary, "peer process", 12) == 0)
            b->routers[i].peer = true;
}

size_t synth_scenario(rb_bundle *b, const char *name, rb_bundle_mode mode, rb_bundle_cache cache,
                      const synth_row *rows, size_t n)
{
    size_t si = b->nscenarios;
    rb_bundle_scenario *s = rb_bundle_add_scenario(b);
    cr_assert_not_null(s);
    snprintf(s->name, sizeof s->name, "%s", name);
    snprintf(s->kind, sizeof s->kind, "files");
    s->mode = mode;
    s->cache = cache;
    snprintf(s->routes_source, sizeof s->routes_source, "t.routes");
    snprintf(s->requests_source, sizeof s->requests_source, "t.requests");
    s->routes = 100;
    s->requests = 1000;
    s->features = RB_FEAT_PARAMS;
    s->routes_fp = 7;
    s->requests_fp = 8;
    for (size_t r = 0; r < n; r++) {
        rb_bundle_result *x = rb_bundle_add_result(s, rows[r].name);
        cr_assert_not_null(x);
        x->memory_bytes = rows[r].memory;
        x->build_ns = 1000 * (r + 1);
        x->disagreements = rows[r].disagreements;
        x->peer_process = rows[r].peer_process;
    }
    for (uint32_t t = 0; t < SYNTH_TRIALS; t++)
        for (size_t r = 0; r < n; r++) {
            rb_bundle_trial tr = {.scenario = si,
                                  .result = r,
                                  .trial = t + 1,
                                  .position = (uint32_t)r + 1,
                                  .lookups = 1000,
                                  .ns = (uint64_t)(rows[r].ns[t] * 1000)};
            cr_assert_eq(rb_bundle_add_trial(b, &tr), RB_OK);
        }
    rb_error err;
    cr_assert_eq(rb_bundle_compute_scenario(b, si, &err), RB_OK, "%s", err.message);
    return si;
}

void synth_refuse(rb_bundle *b, size_t si, const char *router, const char *reason)
{
    rb_bundle_scenario *s = &b->scenarios[si];
    cr_assert_lt(s->nrefused, (size_t)RB_BUNDLE_MAX_REFUSED);
    rb_bundle_refusal *f = &s->refused[s->nrefused++];
    snprintf(f->router, sizeof f->router, "%s", router);
    snprintf(f->reason, sizeof f->reason, "%s", reason);
}

void synth_three_routers(rb_bundle *b, const char *name, rb_bundle_mode mode, rb_bundle_cache cache)
{
    static const double ns[] = {60, 40, 90};
    static const char *const routers[] = {"radix", "hashseg", "ctrie"};
    size_t si = b->nscenarios;
    rb_bundle_scenario *s = rb_bundle_add_scenario(b);
    snprintf(s->name, sizeof s->name, "%s", name);
    snprintf(s->kind, sizeof s->kind, "files");
    s->mode = mode;
    s->cache = cache;
    s->routes = 100;
    s->requests = 1000;
    s->routes_fp = 7;
    s->requests_fp = 8;
    for (size_t r = 0; r < 3; r++) rb_bundle_add_result(s, routers[r])->memory_bytes = 3000;
    for (uint32_t t = 0; t < SYNTH_TRIALS; t++)
        for (size_t r = 0; r < 3; r++) {
            rb_bundle_trial tr = {.scenario = si,
                                  .result = r,
                                  .trial = t + 1,
                                  .position = (uint32_t)r + 1,
                                  .lookups = 1000,
                                  .ns = (uint64_t)(ns[r] * 1000)};
            cr_assert_eq(rb_bundle_add_trial(b, &tr), RB_OK);
        }
    rb_error err;
    cr_assert_eq(rb_bundle_compute_scenario(b, si, &err), RB_OK, "%s", err.message);
}
