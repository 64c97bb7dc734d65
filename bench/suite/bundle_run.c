/*
 * bundle_run.c — a measured scenario into the bundle (bundle_run.h): the
 * scenario's facts and provenance, a result per router, every trial, then
 * the statistics computed from the trials.
 */
#include "bundle_run.h"

#include "base_internal.h"
#include "peer.h"

#include <stdio.h>
#include <string.h>

int rb_bundle_add_run(rb_bundle *b, const rb_scenario *sc, const rb_bench_run *run,
                      const char *const *labels, const char *skipped, rb_error *err)
{
    rb_bundle_scenario *s = rb_bundle_add_scenario(b);
    if (!s) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    size_t si = b->nscenarios - 1;
    snprintf(s->name, sizeof s->name, "%s", sc->spec.name);
    static const char *const kinds[] = {"generated", "shipped", "files"};
    snprintf(s->kind, sizeof s->kind, "%s", kinds[sc->spec.kind]);
    memcpy(s->depth, sc->depth, sizeof s->depth); /* RB_BUNDLE_DEPTHS == RB_SCENARIO_DEPTHS */
    if (sc->spec.kind == RB_SCENARIO_GENERATED) {
        snprintf(s->shape, sizeof s->shape, "%s", sc->spec.shape);
        s->seed = sc->seed;
        snprintf(s->generator, sizeof s->generator, "v%u", sc->generator);
        char cmd[300];
        rb_scenario_gen_command(sc->spec.shape, sc->spec.nroutes, sc->seed, cmd, sizeof cmd);
        snprintf(s->routes_source, sizeof s->routes_source, "generated: %s", cmd);
        snprintf(s->requests_source, sizeof s->requests_source,
                 "generated with the routes: %u requests, %.0f%% misses, 5%% of hits with "
                 "another method, EXPECTED from linear",
                 RB_SCENARIO_REQUESTS, RB_SCENARIO_MISS * 100);
    } else if (sc->spec.kind == RB_SCENARIO_SHIPPED) {
        /* the project's own files: a path that means the same on every machine */
        snprintf(s->routes_source, sizeof s->routes_source, "corpus/data/%s.routes", sc->spec.name);
        snprintf(s->requests_source, sizeof s->requests_source, "corpus/data/%s.requests",
                 sc->spec.name);
    } else {
        snprintf(s->routes_source, sizeof s->routes_source, "%s", sc->spec.routes_path);
        snprintf(s->requests_source, sizeof s->requests_source, "%s", sc->spec.requests_path);
    }
    s->routes = sc->routes.count;
    s->requests = sc->requests.count;
    s->routes_fp = sc->routes_fp;
    s->requests_fp = sc->requests_fp;
    s->features = sc->features;
    bool cpu = run->clock == RB_BENCH_CLOCK_CPU;
    s->parse_ns = cpu ? run->parse_cpu_ns : run->parse_ns;
    snprintf(s->skipped, sizeof s->skipped, "%s", skipped);
    for (size_t k = 0; k < run->nsubjects; k++) {
        const rb_bench_subject *sub = &run->subjects[k];
        rb_bundle_result *r = rb_bundle_add_result(s, labels[k]);
        if (!r) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
        r->memory_bytes = sub->memory;
        r->build_ns = cpu ? sub->build_cpu_ns : sub->build_ns;
        r->replays_per_trial = sub->reps;
        r->lookups_per_trial = sub->reps * run->nqueries;
        r->checksum = sub->checksum;
        r->disagreements = sub->disagree;
        r->short_trials = sub->short_trials;
        r->recalibrated = sub->recalibrated;
        if (sub->peer && sub->peer->counted) r->count_spread = sub->peer->counts.spread;
    }
    bool counted = rb_metric_exact(b->metric);
    for (size_t t = 0; t < run->ntrials; t++) {
        const rb_bench_trial *x = &run->trials[t];
        rb_bundle_trial bt = {.scenario = si,
                              .result = x->subject,
                              .trial = x->trial + 1,
                              .position = x->position + 1,
                              .lookups = x->lookups,
                              .ns = x->ns,
                              .ir = x->ir,
                              .data_refs = x->data_refs,
                              .l1_misses = x->l1_misses,
                              .ll_misses = x->ll_misses};
        /* a counted trial runs under Callgrind: its clocks mean nothing */
        if (!counted && rb_bench_trial_disturbed(x)) s->results[x->subject].disturbed_trials++;
        if (rb_bundle_add_trial(b, &bt) < 0)
            return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    }
    return rb_bundle_compute_scenario(b, si, err);
}
