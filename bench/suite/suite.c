/*
 * suite.c — a measured session (suite.h): the routers of each scenario
 * (refusals, peers), the answers checked against linear's, the harness's
 * trials or Callgrind's counts, the conditions, then the summary.
 */
#define _POSIX_C_SOURCE 200809L
#include "suite.h"

#include "auto.h"
#include "base_internal.h"
#include "bundle_run.h"
#include "clock.h"
#include "library_id.h"
#include "machine.h"
#include "metric.h"
#include "sysinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void rb_suite_init(rb_suite *s)
{
    memset(s, 0, sizeof *s);
    s->proto = (rb_bench_protocol){RB_BENCH_DEFAULT_TRIALS, RB_BENCH_DEFAULT_WARMUP,
                                   RB_BENCH_DEFAULT_MIN_TRIAL_MS, RB_BENCH_CLOCK_WALL, 0};
    s->metric = RB_METRIC_TIME;
    s->seed = RB_SCENARIO_DEFAULT_SEED;
    s->cpu = -1;
    s->app_bytes = RB_BENCH_DEFAULT_APP_BYTES;
    rb_plugins_init(&s->plugins);
}

void rb_suite_free(rb_suite *s)
{
    rb_scenario_list_free(&s->scenarios);
    rb_plugins_close(&s->plugins);
}

int rb_suite_add_ops(rb_suite *s, const rb_router_ops *ops, const char *label, rb_error *err)
{
    for (size_t k = 0; k < s->nrouters; k++)
        if (s->routers[k] == ops) return RB_OK;
    if (s->nrouters == RB_SUITE_MAX_ROUTERS)
        return rb__error(err, RB_ELIMIT, RB_NO_OFFSET, "at most %d routers at once",
                         RB_SUITE_MAX_ROUTERS);
    s->routers[s->nrouters] = ops;
    snprintf(s->labels[s->nrouters], sizeof s->labels[0], "%s", label);
    s->nrouters++;
    return RB_OK;
}

rb_peer_spec *rb_suite_peer(rb_suite *s, const char *name)
{
    for (size_t k = 0; k < s->npeers; k++)
        if (strcmp(s->peers[k].name, name) == 0) return &s->peers[k];
    return NULL;
}

int rb_suite_add_peer(rb_suite *s, const rb_peer_spec *spec, rb_error *err)
{
    if (rb_suite_peer(s, spec->name)) return RB_OK;
    if (s->npeers == RB_SUITE_MAX_PEERS)
        return rb__error(err, RB_ELIMIT, RB_NO_OFFSET, "at most %d peers at once",
                         RB_SUITE_MAX_PEERS);
    rb_peer_spec_copy(&s->peers[s->npeers++], spec);
    return RB_OK;
}

size_t rb_suite_jit_peers(const rb_suite *s)
{
    size_t n = 0;
    for (size_t k = 0; k < s->npeers; k++) n += s->peers[k].jit;
    return n;
}

const char *rb_suite_label(const rb_suite *s, const rb_router_ops *ops)
{
    for (size_t k = 0; k < s->nrouters; k++)
        if (s->routers[k] == ops) return s->labels[k];
    return rb_ops_name(ops);
}

static void stage(const rb_suite_hooks *h, rb_suite_stage st)
{
    if (h->stage) h->stage(h->ctx, st);
}

/* The status of a failed call's rb_error code. */
static int status_of(int code)
{
    return code == RB_ENOMEM ? RB_SUITE_SYSTEM : RB_SUITE_INPUT;
}

/* The identity of every NAME@LIB router's library into the bundle. */
static int add_libraries(const rb_suite *o, rb_bundle *b, rb_error *err)
{
    for (size_t k = 0; k < o->nrouters; k++) {
        size_t lib = rb_plugins_lib_of(&o->plugins, o->routers[k]);
        if (lib == SIZE_MAX) continue;
        rb_bundle_library id;
        rb_error why;
        if (rb_library_identify(o->labels[k], o->plugins.libs[lib].path, o->plugins.libs[lib].build,
                                &id, &why) < 0 ||
            rb_bundle_add_library(b, &id) < 0)
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "%s: %s", o->labels[k], why.message);
    }
    return RB_OK;
}

/* Every answer of every router (route id, every capture span, the 405
 * mask) against EXPECTED and linear's, as verify does (bench/measure/verify.c).
 * A router's disagreements replace the harness's count (EXPECTED only), so
 * the bundle, the table and the exit status see both checks. */
static int check_answers(rb_bench_run *run, const rb_scenario *sc, rb_verify_report *reps,
                         const rb_suite_hooks *h, rb_error *err)
{
    /* the limit answers without captures: the harness checked its hits */
    const rb_router *routers[64];
    size_t at[64], n = 0;
    for (size_t k = 0; k < run->nsubjects; k++) {
        if (run->subjects[k].ops == &rb_bench_limit_ops) continue;
        at[n] = k;
        routers[n++] = run->subjects[k].router;
    }
    stage(h, RB_SUITE_CHECKING);
    rb_verify_report *got = n ? calloc(n, sizeof *got) : NULL;
    if (n && !got) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory checking answers");
    int rc = n ? rb_verify_built(routers, n, &sc->routes, sc->spec.name, &sc->requests, got, err)
               : RB_OK;
    for (size_t i = 0; rc == RB_OK && i < n; i++) {
        size_t k = at[i];
        reps[k] = got[i];
        run->subjects[k].disagree = reps[k].disagreeing;
        if (reps[k].nexamples) run->subjects[k].first_disagree = reps[k].examples[0].request;
    }
    free(got);
    return rc;
}

/* ---- refusals, peers, conditions ------------------------------------------------ */

typedef rb_suite_refusals refusals;

static void refuse(refusals *r, const char *router, const char *why)
{
    if (r->n == RB_BUNDLE_MAX_REFUSED) return;
    snprintf(r->v[r->n].router, sizeof r->v[r->n].router, "%s", router);
    snprintf(r->v[r->n].reason, sizeof r->v[r->n].reason, "%s", why);
    r->n++;
}

static const rb_peer_spec *peer_of(const rb_suite *o, const rb_router_ops *ops)
{
    for (size_t k = 0; k < o->npeers; k++)
        if (&o->peers[k].ops == ops) return &o->peers[k];
    return NULL;
}

/* The scenario's tables as files a peer runner can read: the files it came
 * from, else written into a temporary directory (*tmp, removed by the
 * caller). */
static int scenario_files(const rb_scenario *sc, char *tmp, size_t cap, char *rp, char *qp,
                          size_t pcap, rb_error *err)
{
    if (sc->spec.kind != RB_SCENARIO_GENERATED) {
        snprintf(rp, pcap, "%s", sc->spec.routes_path);
        snprintf(qp, pcap, "%s", sc->spec.requests_path);
        return RB_OK;
    }
    const char *dir = getenv("TMPDIR");
    snprintf(tmp, cap, "%s/routebench-peer-XXXXXX", dir && *dir ? dir : "/tmp");
    if (!mkdtemp(tmp)) {
        tmp[0] = '\0';
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot create a temporary directory");
    }
    snprintf(rp, pcap, "%s/s.routes", tmp);
    snprintf(qp, pcap, "%s/s.requests", tmp);
    int rc = rb_route_table_write(rp, &sc->routes, NULL, err);
    return rc < 0 ? rc : rb_request_table_write(qp, &sc->requests, err);
}

static void remove_files(char *tmp, const char *rp, const char *qp)
{
    if (!*tmp) return;
    remove(rp);
    remove(qp);
    rmdir(tmp);
    tmp[0] = '\0';
}

typedef rb_suite_peer_note peer_note;

/* Start every peer of the scenario, check its answers, add it to run. */
static void add_peers(rb_suite *o, const rb_scenario *sc, rb_bench_run *run,
                      const rb_router_ops *const *peers, size_t npeers, int mode, size_t app,
                      refusals *ref, peer_note *notes, size_t *nnotes, const rb_suite_hooks *h)
{
    char tmp[512] = "", rp[RB_SCENARIO_PATH + 32], qp[RB_SCENARIO_PATH + 32];
    bool have_files = false;
    rb_error err;
    for (size_t k = 0; k < npeers; k++) {
        const rb_peer_spec *spec = peer_of(o, peers[k]);
        const char *label = rb_suite_label(o, peers[k]);
        if (rb_metric_exact(o->metric) && spec->jit) {
            rb_peer_counts none;
            rb_peer_count(spec, "", "", 0, 0, false, &none, &err); /* says why */
            refuse(ref, label, err.message);
            continue;
        }
        if (mode != RB_BENCH_MODE_THROUGHPUT || app) {
            refuse(ref, label, "peer runners measure warm throughput only (protocol 1)");
            continue;
        }
        if (!have_files) {
            if (scenario_files(sc, tmp, sizeof tmp, rp, qp, sizeof rp, &err) < 0) {
                refuse(ref, label, err.message);
                continue;
            }
            have_files = true;
        }
        rb_peer *peer;
        if (rb_peer_start(spec, rp, qp, sc->requests.count, &peer, &err) < 0) {
            refuse(ref, label, err.message);
            continue;
        }
        if (peer->nrefused) {
            char why[RB_BUNDLE_TEXT];
            snprintf(why, sizeof why, "refuses %zu route%s (first: route %s)", peer->nrefused,
                     peer->nrefused == 1 ? "" : "s", peer->first_refusal);
            refuse(ref, label, why);
            rb_peer_close(peer);
            continue;
        }
        peer_note *n = &notes[*nnotes];
        if (rb_peer_check(peer, &sc->routes, &sc->requests, &n->a, &err) < 0) {
            refuse(ref, label, err.message);
            rb_peer_close(peer);
            continue;
        }
        if (rb_metric_exact(o->metric)) {
            stage(h, RB_SUITE_COUNTING_PEER);
            if (rb_peer_count(spec, rp, qp, sc->requests.count, peer->checksum,
                              o->metric == RB_METRIC_CYCLES_EST, &peer->counts, &err) < 0) {
                refuse(ref, label, err.message);
                rb_peer_close(peer);
                continue;
            }
            peer->counted = true;
        }
        if (rb_bench_add_peer(run, peers[k], peer, peer->checksum,
                              n->a.requests - n->a.agree_expected, &err) < 0) {
            refuse(ref, label, err.message);
            continue;
        }
        n->ops = peers[k];
        (*nnotes)++;
    }
    remove_files(tmp, rp, qp);
}

/* The conditions, refusals and peers into the scenario just added. */
static void fill_conditions(const rb_suite *o, rb_bundle_scenario *s, const rb_bench_run *run,
                            int mode, size_t app, const refusals *ref, const peer_note *notes,
                            size_t nnotes)
{
    s->mode = mode == RB_BENCH_MODE_LATENCY ? RB_BUNDLE_LATENCY : RB_BUNDLE_THROUGHPUT;
    s->cache = app ? RB_BUNDLE_COLD : RB_BUNDLE_WARM;
    if (mode != RB_BENCH_MODE_THROUGHPUT || app) {
        size_t n = strlen(s->name);
        snprintf(s->name + n, sizeof s->name - n, " (%s, %s)", rb_bundle_mode_name(s->mode),
                 rb_bundle_cache_name(s->cache));
    }
    s->app_bytes = app;
    s->app_ns = run->app_ns;
    s->app_mad_ns = run->app_mad_ns;
    for (size_t i = 0; i < ref->n; i++) s->refused[s->nrefused++] = ref->v[i];
    for (size_t k = 0; k < run->nsubjects && k < s->nresults; k++) {
        const rb_bench_subject *sub = &run->subjects[k];
        rb_bundle_result *r = &s->results[k];
        r->rss_growth_bytes = sub->rss_growth;
        r->peer_process = sub->peer != NULL;
        for (size_t i = 0; i < nnotes; i++)
            if (notes[i].ops == sub->ops)
                r->disagree_linear = notes[i].a.requests - notes[i].a.agree_linear;
        const char *pick = rb__auto_choice(sub->router);
        if (pick) {
            snprintf(s->auto_why, sizeof s->auto_why, "%s", rb_router_describe(sub->router));
            snprintf(s->auto_choice, sizeof s->auto_choice, "%s", pick);
        }
    }
    (void)o;
}

/* The routers of one pass: measured in-process, peers, lacking a feature,
 * refusing the table. */
typedef struct selection {
    const rb_router_ops *ops[64], *peers[64];
    size_t nops, npeers;
    char skipped[RB_BUNDLE_TEXT];
    refusals ref;
    peer_note notes[64];
    size_t nnotes;
} selection;

static void select_routers(const rb_suite *o, const rb_scenario *sc, selection *sel)
{
    memset(sel, 0, sizeof *sel);
    size_t slen = 0;
    for (size_t k = 0; k < o->nrouters; k++) {
        if (peer_of(o, o->routers[k])) {
            sel->peers[sel->npeers++] = o->routers[k];
            continue;
        }
        if (sc->features & ~rb_ops_features(o->routers[k])) {
            int w = snprintf(sel->skipped + slen, sizeof sel->skipped - slen, "%s%s",
                             slen ? "," : "", o->labels[k]);
            if (w > 0 && (size_t)w < sizeof sel->skipped - slen) slen += (size_t)w;
            continue;
        }
        sel->ops[sel->nops++] = o->routers[k];
    }
}

/* The build of a pass: the hooks' progress, and the refusals into the
 * selection (a router whose build() refuses the table is left out of the
 * pass with its reason: the limit when a requested path reads as a
 * pattern, compiled over its size, any router lacking what the table
 * needs). */
typedef struct building {
    const rb_suite *o;
    selection *sel;
    const rb_suite_hooks *h;
} building;

static void building_step(void *ctx, const char *what, const rb_bench_subject *s, size_t done,
                          size_t total)
{
    const building *bd = ctx;
    if (bd->h->step) bd->h->step(bd->h->ctx, what, s, done, total);
}

static void building_refused(void *ctx, const rb_router_ops *ops, const rb_error *why)
{
    building *bd = ctx;
    refuse(&bd->sel->ref, rb_suite_label(bd->o, ops), why->message);
}

/* What a pass returns when its routers' builds left nothing to measure
 * (every router refused, or one did where all or nothing run): the
 * scenario is skipped with their reasons, as before any build. */
#define NOTHING_LEFT 1

static bool enough(const rb_suite *o, const selection *sel)
{
    size_t n = sel->nops + sel->npeers;
    return n > 0 && (!o->all_or_nothing || n == o->nrouters);
}

/* The routers prepare kept, in order: the selection's from now on;
 * NOTHING_LEFT when they are not enough. */
static int kept(const rb_suite *o, selection *sel, const rb_bench_run *run, int rc)
{
    if (rc < 0) return rc;
    sel->nops = run->nsubjects;
    for (size_t k = 0; k < run->nsubjects; k++) sel->ops[k] = run->subjects[k].ops;
    return enough(o, sel) ? RB_OK : NOTHING_LEFT;
}

/* Count one replay of each router under Callgrind. */
static int measure_counted(rb_suite *o, rb_scenario *sc, selection *sel, rb_bench_run *run,
                           rb_verify_report *reps, const rb_suite_hooks *h, rb_error *err)
{
    const char *labels[64];
    building bd = {o, sel, h};
    int rc =
        rb_bench_prepare_pinned(run, &sc->routes, &sc->requests, sel->ops, sel->nops,
                                RB_CALLGRIND_HASH_SEED, building_step, building_refused, &bd, err);
    rc = kept(o, sel, run, rc);
    for (size_t k = 0; k < sel->nops; k++) labels[k] = rb_suite_label(o, sel->ops[k]);
    if (rc == RB_OK) rc = check_answers(run, sc, reps, h, err);
    if (rc == RB_OK && sel->npeers)
        add_peers(o, sc, run, sel->peers, sel->npeers, RB_BENCH_MODE_THROUGHPUT, 0, &sel->ref,
                  sel->notes, &sel->nnotes, h);
    if (rc == RB_OK) stage(h, RB_SUITE_COUNTING);
    if (rc == RB_OK)
        rc = rb_callgrind_measure(&o->cg, run, o->metric == RB_METRIC_CYCLES_EST, labels, err);
    return rc;
}

/* Time every router (and peer) in paired rounds under one condition. */
static int measure_timed(rb_suite *o, const rb_bundle *b, rb_scenario *sc, selection *sel,
                         rb_bench_run *run, rb_verify_report *reps, const rb_suite_hooks *h,
                         int mode, size_t app, rb_error *err)
{
    /* an explicit hash seed (the run's seed; 0 would mean a random one), so
     * that every run builds the same tables */
    const rb_config cfg = {NULL, o->seed ? o->seed : 1};
    rb_bench_protocol proto = o->proto;
    proto.order_seed = rb_bundle_order_seed(o->seed, b->nscenarios);
    if (o->metric == RB_METRIC_HW_INSTRUCTIONS) proto.clock = RB_BENCH_CLOCK_HW_INSTRUCTIONS;
    building bd = {o, sel, h};
    int rc = rb_bench_prepare_progress(run, &sc->routes, &sc->requests, sel->ops, sel->nops, &cfg,
                                       building_step, building_refused, &bd, err);
    rc = kept(o, sel, run, rc);
    if (rc == RB_OK) rc = check_answers(run, sc, reps, h, err);
    if (rc == RB_OK && sel->npeers) {
        stage(h, RB_SUITE_PEERS);
        add_peers(o, sc, run, sel->peers, sel->npeers, mode, app, &sel->ref, sel->notes,
                  &sel->nnotes, h);
    }
    if (rc == RB_OK) rc = rb_bench_set_conditions(run, mode, app, err);
    if (rc == RB_OK) rc = rb_bench_measure(run, &proto, h->step, h->ctx, err);
    return rc;
}

/* The pass just measured into the bundle: its results and conditions. */
static int record(rb_suite *o, rb_bundle *b, const rb_scenario *sc, const rb_bench_run *run,
                  const selection *sel, int mode, size_t app, rb_error *err)
{
    const char *labels[64];
    for (size_t k = 0; k < run->nsubjects; k++) labels[k] = rb_suite_label(o, run->subjects[k].ops);
    int rc = rb_bundle_add_run(b, sc, run, labels, sel->skipped, err);
    if (rc < 0) return rc;
    rb_bundle_scenario *s = &b->scenarios[b->nscenarios - 1];
    fill_conditions(o, s, run, mode, app, &sel->ref, sel->notes, sel->nnotes);
    if (o->source_note) snprintf(s->routes_source, sizeof s->routes_source, "%s", o->source_note);
    if (o->requests_note)
        snprintf(s->requests_source, sizeof s->requests_source, "%s", o->requests_note);
    return RB_OK;
}

/* Request i, answered got, into d: what the compatibility tables show;
 * want (linear's answer, NULL for a peer's) says what was expected more
 * fully than EXPECTED. */
static void set_differ(rb_bundle_differ *d, const rb_request_table *requests, size_t i,
                       const rb_match *got, const rb_match *want)
{
    const rb_request *q = &requests->reqs[i];
    const char *path = rb_request_path(requests, i);
    size_t w = 0;
    for (size_t k = 0; k < q->len && w + 1 < sizeof d->path; k++)
        d->path[w++] = path[k] >= 0x20 && path[k] < 0x7f ? path[k] : '?';
    d->path[w] = '\0';
    snprintf(d->method, sizeof d->method, "%s", rb_method_name(q->method));
    if (want)
        rb_match_format(want, d->expected, sizeof d->expected);
    else if (q->expected >= 0)
        snprintf(d->expected, sizeof d->expected, "200 route %d", (int)q->expected);
    else
        snprintf(d->expected, sizeof d->expected, "%s",
                 q->expected == RB_EXPECT_NOT_ALLOWED ? "405" : "404");
    rb_match_format(got, d->got, sizeof d->got);
    size_t n = strlen(d->got); /* a peer reports no 405 mask: "405 allow " says nothing */
    if (n >= 6 && strcmp(d->got + n - 6, "allow ") == 0) d->got[n - 7] = '\0';
}

/* The first requests each router answered otherwise, into the scenario
 * just recorded: ours from the answer check, a peer's from its answers. */
static void record_differs(rb_bundle *b, const rb_scenario *sc, const rb_bench_run *run,
                           const rb_verify_report *reps, const selection *sel)
{
    rb_bundle_scenario *s = &b->scenarios[b->nscenarios - 1];
    for (size_t k = 0; k < run->nsubjects && k < s->nresults; k++) {
        rb_bundle_result *r = &s->results[k];
        const rb_bench_subject *sub = &run->subjects[k];
        if (sub->peer) {
            for (size_t i = 0; i < sc->requests.count && r->ndiffers < RB_BUNDLE_MAX_DIFFERS; i++) {
                rb_match got;
                rb_peer_match(sub->peer, i, &got);
                if (!rb_match_expected(&got, sc->requests.reqs[i].expected))
                    set_differ(&r->differs[r->ndiffers++], &sc->requests, i, &got, NULL);
            }
        } else if (k < sel->nops) {
            /* answers against EXPECTED first, then those differing from linear alone */
            for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < reps[k].nexamples && r->ndiffers < RB_BUNDLE_MAX_DIFFERS;
                     i++) {
                    const rb_verify_example *x = &reps[k].examples[i];
                    if (x->expected_ok == (pass == 0)) continue;
                    set_differ(&r->differs[r->ndiffers++], &sc->requests, x->request, &x->got,
                               &x->want);
                }
        }
    }
}

/* Measure one scenario under one condition.  Returns a suite status. */
static int measure_condition(rb_suite *o, rb_bundle *b, rb_scenario *sc, const rb_suite_hooks *h,
                             int mode, size_t app)
{
    rb_error err;
    selection sel;
    select_routers(o, sc, &sel);
    if (!enough(o, &sel)) {
        if (h->skipped) h->skipped(h->ctx, sc->spec.name, sel.skipped, &sel.ref);
        return RB_SUITE_OK;
    }
    rb_bench_run run;
    memset(&run, 0, sizeof run);
    /* every answer is checked against linear's before anything is measured */
    rb_verify_report *reps = calloc(sel.nops, sizeof *reps);
    int rc =
        reps ? RB_OK : rb__error(&err, RB_ENOMEM, RB_NO_OFFSET, "out of memory checking answers");
    if (rc == RB_OK)
        rc = rb_metric_exact(o->metric)
                 ? measure_counted(o, sc, &sel, &run, reps, h, &err)
                 : measure_timed(o, b, sc, &sel, &run, reps, h, mode, app, &err);
    if (rc == NOTHING_LEFT) {
        if (h->skipped) h->skipped(h->ctx, sc->spec.name, sel.skipped, &sel.ref);
        free(reps);
        rb_bench_run_free(&run);
        return RB_SUITE_OK;
    }
    if (rc == RB_OK) rc = record(o, b, sc, &run, &sel, mode, app, &err);
    if (rc == RB_OK) record_differs(b, sc, &run, reps, &sel);
    int status = RB_SUITE_OK;
    if (rc < 0) {
        if (h->failed) h->failed(h->ctx, sc->spec.name, &err);
        status = rc == RB_ESTATE ? RB_SUITE_WRONG : status_of(rc);
    } else {
        /* choose shows a table once both its conditions are measured */
        rb_suite_pass p = {sc, &run, reps, sel.nops, sel.notes, sel.nnotes};
        if (h->measured && (!o->both_conditions || rb_bundle_is_condition(b, b->nscenarios - 1)))
            h->measured(h->ctx, b, &p);
        /* a peer is measured, not held to our semantics (router.h, RB_FEAT_PEER) */
        for (size_t k = 0; k < run.nsubjects; k++)
            if (run.subjects[k].disagree && !(rb_ops_features(run.subjects[k].ops) & RB_FEAT_PEER))
                status = RB_SUITE_WRONG;
    }
    free(reps);
    rb_bench_run_free(&run);
    return status;
}

/* Measure scenario i: under the session's conditions, or (both_conditions)
 * warm throughput and cold latency.  Returns a suite status. */
static int one_scenario(rb_suite *o, rb_bundle *b, size_t i, const rb_suite_hooks *h)
{
    const rb_scenario_spec *spec = &o->scenarios.v[i];
    rb_error err;
    rb_scenario sc;
    bool cold = !o->both_conditions && o->cache;
    if (h->pass) h->pass(h->ctx, i, cold, o->both_conditions ? " (warm)" : "");
    stage(h, RB_SUITE_LOADING);
    if (rb_scenario_load(spec, o->seed, &sc, &err) < 0) {
        if (h->failed) h->failed(h->ctx, spec->name, &err);
        return status_of(err.code);
    }
    int status;
    if (o->both_conditions) {
        status = measure_condition(o, b, &sc, h, RB_BENCH_MODE_THROUGHPUT, 0);
        if (status != RB_SUITE_INPUT && status != RB_SUITE_SYSTEM) {
            if (h->pass) h->pass(h->ctx, i, true, " (cold)");
            int s2 = measure_condition(o, b, &sc, h, RB_BENCH_MODE_LATENCY, o->app_bytes);
            if (s2 > status) status = s2;
        }
    } else {
        status = measure_condition(o, b, &sc, h, o->mode, cold ? o->app_bytes : 0);
    }
    rb_scenario_free(&sc);
    return status;
}

/* ---- before and after the scenarios ------------------------------------------------------------ */

/* The bundle's facts before anything is measured; pins the CPU. */
static int begin(rb_suite *o, rb_bundle *b, rb_error *err)
{
    rb_bundle_init(b);
    rb_sysinfo_fill(b);
    bool counted = rb_metric_exact(o->metric);
    b->metric = o->metric;
    b->seed = o->seed;
    b->order_seed = rb_bundle_order_seed(o->seed, 0);
    b->trials = counted ? 1 : o->proto.trials;
    b->warmup = counted ? 1 : o->proto.warmup;
    b->min_trial_ms = counted ? 0 : o->proto.min_trial_ms;
    b->cpu_clock = !counted && o->proto.clock == RB_BENCH_CLOCK_CPU;
    snprintf(b->baseline, sizeof b->baseline, "%s", o->labels[0]);
    for (size_t k = 0; k < o->nrouters; k++)
        if (rb_bundle_add_router(b, o->labels[k], rb_ops_summary(o->routers[k]),
                                 rb_ops_features(o->routers[k])) < 0)
            return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    if (rb_bundle_add_standard_limitations(b) < 0)
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    int rc = add_libraries(o, b, err);
    if (rc == RB_OK && counted) rc = rb_callgrind_open(&o->cg, err);
    if (rc < 0) return rc;
    if (o->cpu >= 0) {
        rb_error why;
        if (rb_machine_pin_cpu(o->cpu, &why) < 0)
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "--cpu: %s", why.message);
        b->pinned_cpu = o->cpu;
    }
    return RB_OK;
}

/* The run's own warnings: trials measured again, trials disturbed. */
static int add_run_warnings(rb_bundle *b)
{
    uint64_t disturbed = 0, short_trials = 0, recalibrated = 0;
    for (size_t i = 0; i < b->nscenarios; i++)
        for (size_t k = 0; k < b->scenarios[i].nresults; k++) {
            disturbed += b->scenarios[i].results[k].disturbed_trials;
            short_trials += b->scenarios[i].results[k].short_trials;
            recalibrated += b->scenarios[i].results[k].recalibrated;
        }
    int rc = RB_OK;
    char text[512];
    if (recalibrated) {
        snprintf(text, sizeof text,
                 "%llu router%s ran trials shorter than --min-trial-ms %g (the machine was "
                 "faster than during calibration) and %s recalibrated and measured again; "
                 "%llu trial%s still fell short%s",
                 (unsigned long long)recalibrated, recalibrated == 1 ? "" : "s", b->min_trial_ms,
                 recalibrated == 1 ? "was" : "were", (unsigned long long)short_trials,
                 short_trials == 1 ? "" : "s",
                 short_trials ? " (counted in short_trials; the machine's speed is drifting)" : "");
        rc = rb_bundle_add_warning(b, text);
    }
    if (disturbed && rc == RB_OK) {
        snprintf(text, sizeof text,
                 "%llu of %zu measured trials were disturbed: the benchmark thread had the CPU "
                 "for less than %.0f%% of the trial's wall time (other work ran on its core). "
                 "%s",
                 (unsigned long long)disturbed, b->ntrials, RB_BENCH_DISTURBED_SHARE * 100,
                 b->cpu_clock ? "The times are the thread's CPU time, so the preemption itself "
                                "is left out; the other work still shared caches and the core."
                              : "Pairing cancels part of this; medians and intervals are less "
                                "trustworthy (a quieter machine, --cpu N or --clock cpu help).");
        rc = rb_bundle_add_warning(b, text);
    }
    return rc;
}

/* After the scenarios: the duration, the warnings, the geometric means,
 * the gate. */
static int summarise(rb_suite *o, rb_bundle *b, double elapsed_s, rb_error *err)
{
    rb_error why;
    b->loadavg_end = rb_machine_loadavg();
    b->duration_s = elapsed_s;
    int rc = rb_sysinfo_warnings(b);
    if (rc == RB_OK) rc = add_run_warnings(b);
    if (rc < 0 || rb_bundle_compute_geomeans(b, &why) < 0)
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory summarising");
    if (o->gate.on) {
        b->gate = o->gate;
        if (rb_bundle_decide_gate(b, &why) < 0)
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "the gate: %s", why.message);
    }
    if (o->noise_note && o->nrouters == 2 && rb_bundle_noise_note(b) < 0)
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory summarising");
    return RB_OK;
}

int rb_suite_run(rb_suite *s, const rb_suite_hooks *hooks, rb_bundle *b, rb_error *err)
{
    static const rb_suite_hooks none = {0};
    const rb_suite_hooks *h = hooks ? hooks : &none;
    int rc = begin(s, b, err);
    if (rc < 0) return status_of(rc);
    if (h->begun) h->begun(h->ctx, b);
    uint64_t start = rb__monotonic_ns();
    int status = RB_SUITE_OK;
    for (size_t i = 0; i < s->scenarios.n; i++) {
        int st = one_scenario(s, b, i, h);
        if (st == RB_SUITE_INPUT || st == RB_SUITE_SYSTEM) {
            *err = (rb_error){0};
            return st;
        }
        if (st > status) status = st;
    }
    rc = summarise(s, b, (double)(rb__monotonic_ns() - start) / 1e9, err);
    return rc < 0 ? status_of(rc) : status;
}
