/*
 * bundle.c — the result bundle in memory: appending what a run measured and
 * computing every statistic from the raw trials with stats.h.
 */
#include "bundle.h"

#include "limit.h"

#include "generate.h"
#include "base_internal.h"
#include "scenario.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rb_bundle_init(rb_bundle *b)
{
    memset(b, 0, sizeof *b);
    b->loadavg_start = -1;
    b->loadavg_end = -1;
    b->duration_s = -1;
    b->pinned_cpu = -1;
    b->bootstrap = (rb_bootstrap_opts)RB_BOOTSTRAP_OPTS_DEFAULT;
}

static void free_strings(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

void rb_bundle_free(rb_bundle *b)
{
    for (size_t i = 0; i < b->nscenarios; i++) {
        free(b->scenarios[i].results);
        free(b->scenarios[i].pairs);
    }
    free(b->scenarios);
    free(b->routers);
    free(b->trials_v);
    free(b->geomeans);
    free(b->libraries);
    free_strings(b->warnings, b->nwarnings);
    free_strings(b->limitations, b->nlimitations);
    rb_bundle_init(b);
}

/* Grow *v (n elements of size) by one zeroed element; NULL on failure. */
static void *grow(void **v, size_t *n, size_t size)
{
    char *p = realloc(*v, (*n + 1) * size);
    if (!p) return NULL;
    *v = p;
    memset(p + *n * size, 0, size);
    return p + (*n)++ * size;
}

static void copy_text(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src ? src : "");
}

int rb_bundle_add_router(rb_bundle *b, const char *name, const char *summary, unsigned features)
{
    rb_bundle_router *r = grow((void **)&b->routers, &b->nrouters, sizeof *r);
    if (!r) return RB_ENOMEM;
    copy_text(r->name, sizeof r->name, name);
    copy_text(r->summary, sizeof r->summary, summary);
    r->features = features;
    r->reference = strncmp(r->summary, "reference", 9) == 0;
    r->peer = (features & RB_FEAT_PEER) != 0;
    return RB_OK;
}

_Static_assert(RB_BUNDLE_DEPTHS == RB_SCENARIO_DEPTHS, "depth histograms are copied");

rb_bundle_scenario *rb_bundle_add_scenario(rb_bundle *b)
{
    return grow((void **)&b->scenarios, &b->nscenarios, sizeof(rb_bundle_scenario));
}

void rb_bundle_gen_command(const rb_bundle_scenario *s, char *buf, size_t cap)
{
    bool nc;
    uint32_t generator;
    int shape = rb_scenario_shape_parse(s->shape, &nc, &generator);
    snprintf(buf, cap,
             "routebench corpus gen --shape %s%s --generator %s --routes %zu --seed %llu --out "
             "PREFIX",
             rb_gen_shape_name(shape), nc ? " --no-conflicts" : "",
             *s->generator ? s->generator : "v1", s->routes, (unsigned long long)s->seed);
}

void rb_bundle_depth_text(const rb_bundle_scenario *s, char *buf, size_t cap)
{
    size_t total = 0, n = 0;
    buf[0] = '\0';
    for (int d = 0; d < RB_BUNDLE_DEPTHS; d++) total += s->depth[d];
    if (!total) return;
    for (int d = 0; d < RB_BUNDLE_DEPTHS && n < cap; d++) {
        if (!s->depth[d]) continue;
        double pct = 100.0 * (double)s->depth[d] / (double)total;
        const char *more = d == RB_BUNDLE_DEPTHS - 1 ? "+" : "";
        if (pct < 0.1)
            n += (size_t)snprintf(buf + n, cap - n, "%s%d%s <0.1%%", n ? ", " : "", d, more);
        else
            n += (size_t)snprintf(buf + n, cap - n, "%s%d%s %.*f%%", n ? ", " : "", d, more,
                                  pct < 1 ? 1 : 0, pct);
    }
}

rb_bundle_result *rb_bundle_add_result(rb_bundle_scenario *s, const char *router)
{
    rb_bundle_result *r = grow((void **)&s->results, &s->nresults, sizeof *r);
    if (r) copy_text(r->router, sizeof r->router, router);
    if (r) r->rss_growth_bytes = -1; /* unknown until measured */
    return r;
}

int rb_bundle_add_trial(rb_bundle *b, const rb_bundle_trial *t)
{
    rb_bundle_trial *p = grow((void **)&b->trials_v, &b->ntrials, sizeof *p);
    if (!p) return RB_ENOMEM;
    *p = *t;
    return RB_OK;
}

static int add_string(char ***v, size_t *n, const char *text)
{
    char *copy = malloc(strlen(text) + 1);
    if (!copy) return RB_ENOMEM;
    strcpy(copy, text);
    char **slot = grow((void **)v, n, sizeof *slot);
    if (!slot) {
        free(copy);
        return RB_ENOMEM;
    }
    *slot = copy;
    return RB_OK;
}

int rb_bundle_add_library(rb_bundle *b, const rb_bundle_library *lib)
{
    rb_bundle_library *p = grow((void **)&b->libraries, &b->nlibraries, sizeof *p);
    if (!p) return RB_ENOMEM;
    *p = *lib;
    return RB_OK;
}

int rb_bundle_add_warning(rb_bundle *b, const char *text)
{
    return add_string(&b->warnings, &b->nwarnings, text);
}

int rb_bundle_add_limitation(rb_bundle *b, const char *text)
{
    return add_string(&b->limitations, &b->nlimitations, text);
}

static const char *const standard_limitations[] = {
    "These are in-process lookups per second of a router data structure, not HTTP requests "
    "per second: no sockets, no HTTP parsing, no middleware, no serialization.",
    "One machine, one compiler and one build: other CPUs (cache sizes, branch predictors), "
    "compilers and flags can order the routers differently.",
    "The request tables replay the same few thousand requests many times, so the route "
    "structures stay warm in cache; a server with many other working sets will see more "
    "cache misses.",
    "Lookups run on one thread; contention and scaling across cores are not measured.",
    "Build time is one wall-clock measurement of create + add + build, not a distribution.",
    "A ratio's interval is the sign-test interval of the median of the pairs: its coverage "
    "(96.1% with 9 pairs, 96.5% with 15) holds when pairs are independent; a disturbance "
    "that hits several consecutive trials makes neighbouring pairs alike, and the interval "
    "narrower than it should be.",
};

/* For time-like metrics only: a counted metric has no trials to speak of. */
static const char *const counted_limitation =
    "Instruction counts (Callgrind) are exact and repeatable but are not time: they ignore "
    "caches (unless cycles-est), branch prediction, instruction-level parallelism and "
    "frequency, so a change that trades instructions for memory traffic can count fewer "
    "instructions and still run slower.";

int rb_bundle_add_standard_limitations(rb_bundle *b)
{
    for (size_t i = 0; i < sizeof standard_limitations / sizeof standard_limitations[0]; i++) {
        if (rb_metric_exact(b->metric) &&
            i + 1 == sizeof standard_limitations / sizeof standard_limitations[0])
            break; /* the interval limitation: counted ratios are exact */
        int rc = rb_bundle_add_limitation(b, standard_limitations[i]);
        if (rc < 0) return rc;
    }
    if (rb_metric_exact(b->metric)) {
        int rc = rb_bundle_add_limitation(b, counted_limitation);
        if (rc < 0) return rc;
    }
    rb_buf refs = {0};
    for (size_t i = 0; i < b->nrouters; i++) {
        if (!b->routers[i].reference) continue;
        rb_buf_printf(&refs, "%s%s (%s)", refs.len ? "; " : "", b->routers[i].name,
                      b->routers[i].summary);
    }
    int rc = RB_OK;
    if (refs.failed) {
        rc = RB_ENOMEM;
    } else if (refs.len) {
        rb_buf text = {0};
        rb_buf_printf(&text, "Reference rows are yardsticks, not routers to choose: %s.",
                      refs.data);
        rc = text.failed ? RB_ENOMEM : rb_bundle_add_limitation(b, text.data);
        rb_buf_free(&text);
    }
    rb_buf_free(&refs);
    for (size_t i = 0; rc == RB_OK && i < b->nrouters; i++) {
        if (!b->routers[i].peer) continue;
        char text[RB_BUNDLE_TEXT + RB_BUNDLE_NAME + 160];
        snprintf(text, sizeof text,
                 "%s is a peer (%s): measured beside ours but not held to our route semantics; "
                 "where its checksum differs it answered some requests differently, so its "
                 "speed is for a slightly different job.",
                 b->routers[i].name, b->routers[i].summary);
        rc = rb_bundle_add_limitation(b, text);
    }
    return rc;
}

double rb_bundle_trial_ns_per_lookup(const rb_bundle_trial *t)
{
    return (double)t->ns / (double)t->lookups;
}

const rb_bundle_router *rb_bundle_router_info(const rb_bundle *b, const char *name)
{
    for (size_t i = 0; i < b->nrouters; i++)
        if (strcmp(b->routers[i].name, name) == 0) return &b->routers[i];
    return NULL;
}

const char *rb_bundle_label(const rb_bundle *b, const char *router, bool brief, char *buf,
                            size_t cap)
{
    const rb_bundle_router *info = rb_bundle_router_info(b, router);
    const char *tag = !info             ? ""
                      : info->reference ? (brief ? " (ref)" : " (reference)")
                      : info->peer      ? " (peer)"
                                        : "";
    snprintf(buf, cap, "%s%s", router, tag);
    return buf;
}

size_t rb_bundle_result_index(const rb_bundle_scenario *s, const char *router)
{
    for (size_t i = 0; i < s->nresults; i++)
        if (strcmp(s->results[i].router, router) == 0) return i;
    return SIZE_MAX;
}

const rb_bundle_pair *rb_bundle_find_pair(const rb_bundle_scenario *s, const char *a, const char *b)
{
    for (size_t i = 0; i < s->npairs; i++)
        if (strcmp(s->pairs[i].a, a) == 0 && strcmp(s->pairs[i].b, b) == 0) return &s->pairs[i];
    return NULL;
}

bool rb_bundle_is_limit(const rb_bundle_result *r)
{
    return strcmp(r->router, RB_LIMIT_NAME) == 0;
}

bool rb_bundle_limit_ratio(const rb_bundle_scenario *s, const char *router, double *x, double *lo,
                           double *hi)
{
    if (strcmp(router, RB_LIMIT_NAME) == 0) return false;
    const rb_bundle_pair *p = rb_bundle_find_pair(s, router, RB_LIMIT_NAME);
    if (p && p->r.median > 0) { /* r_i = router / limit */
        *x = p->r.median, *lo = p->r.lo, *hi = p->r.hi;
        return true;
    }
    p = rb_bundle_find_pair(s, RB_LIMIT_NAME, router);
    if (!p || !(p->r.median > 0) || !(p->r.lo > 0) || !(p->r.hi > 0))
        return false; /* r_i = limit / router: inverted */
    *x = 1.0 / p->r.median, *lo = 1.0 / p->r.hi, *hi = 1.0 / p->r.lo;
    return true;
}

void rb_bundle_limit_text(const rb_bundle *b, const rb_bundle_scenario *s, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < s->nresults; i++) {
        const rb_bundle_router *info = rb_bundle_router_info(b, s->results[i].router);
        double x, lo, hi;
        if ((info && (info->reference || info->peer)) ||
            !rb_bundle_limit_ratio(s, s->results[i].router, &x, &lo, &hi))
            continue;
        int w = snprintf(buf + n, cap - n, "%s%s %.2fx", n ? ", " : "", s->results[i].router, x);
        if (w < 0 || (size_t)w >= cap - n) return;
        n += (size_t)w;
    }
}

/* ns/lookup of result ri of scenario si, in round order, into xs (n =
 * b->trials); SIZE_MAX rounds missing or repeated make it an error. */
static int trial_times(const rb_bundle *b, size_t si, size_t ri, double *xs, size_t n,
                       rb_error *err)
{
    size_t got = 0;
    for (size_t i = 0; i < n; i++) xs[i] = -1;
    for (size_t k = 0; k < b->ntrials; k++) {
        const rb_bundle_trial *t = &b->trials_v[k];
        if (t->scenario != si || t->result != ri) continue;
        if (t->trial < 1 || t->trial > n || xs[t->trial - 1] >= 0 || t->lookups == 0)
            return rb__error(err, RB_EFORMAT, RB_NO_OFFSET,
                             "scenario %s, router %s: trial %u is repeated, empty or beyond "
                             "the %zu trials of the protocol",
                             b->scenarios[si].name, b->scenarios[si].results[ri].router, t->trial,
                             n);
        xs[t->trial - 1] = rb_bundle_trial_ns_per_lookup(t);
        got++;
    }
    if (got != n)
        return rb__error(err, RB_EFORMAT, RB_NO_OFFSET,
                         "scenario %s, router %s: %zu trials, the protocol says %zu",
                         b->scenarios[si].name, b->scenarios[si].results[ri].router, got, n);
    return RB_OK;
}

/* The raw counts per lookup of result ri (median over its trials); xs
 * holds 2n doubles of scratch. */
static int raw_counts(rb_bundle *b, size_t si, size_t ri, double *xs, size_t n, rb_error *err)
{
    rb_bundle_result *r = &b->scenarios[si].results[ri];
    double *out[4] = {&r->ir_per_lookup, &r->data_refs_per_lookup, &r->l1_misses_per_lookup,
                      &r->ll_misses_per_lookup};
    for (int field = 0; field < 4; field++) {
        size_t got = 0;
        for (size_t k = 0; k < b->ntrials && got < n; k++) {
            const rb_bundle_trial *t = &b->trials_v[k];
            if (t->scenario != si || t->result != ri) continue;
            uint64_t v = field == 0   ? t->ir
                         : field == 1 ? t->data_refs
                         : field == 2 ? t->l1_misses
                                      : t->ll_misses;
            xs[got++] = (double)v / (double)t->lookups;
        }
        *out[field] = 0;
        if (got && rb_stats_median(xs, got, out[field], xs + n) < 0)
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "statistics of the raw counts failed");
    }
    return RB_OK;
}

/* A counted metric: the exact ratio of the medians (one trial each when
 * measured by routebench); no interval, no noise, unless a count has an
 * A/A spread (tol, the sum of the two counts' spreads): then the ratio is
 * known within ±tol, its interval [ratio / (1 + tol), ratio x (1 + tol)]
 * and its MDE tol (bench/bundle/gate.h). */
static int exact_pair(const double *ta, const double *tb, size_t n, double level, double tol,
                      rb_paired_result *out)
{
    double *work = malloc(2 * n * sizeof *work);
    if (!work) return RB_ENOMEM;
    double ma, mb;
    int rc = rb_stats_median(ta, n, &ma, work);
    if (rc == 0) rc = rb_stats_median(tb, n, &mb, work + n);
    free(work);
    if (rc < 0) return rc;
    double ratio = ma / mb;
    rb_paired_result r = {0};
    r.n = n;
    r.median = r.lo = r.hi = ratio;
    r.level = level;
    r.coverage = 1.0;
    r.mde = tol > 0 ? tol : 0.0;
    if (tol > 0) {
        r.lo = ratio / (1 + tol);
        r.hi = ratio * (1 + tol);
    }
    r.wins = r.lo > 1.0 ? n : 0;
    r.losses = r.hi < 1.0 ? n : 0;
    r.excludes_one = r.lo > 1.0 || r.hi < 1.0;
    *out = r;
    return 0;
}

static int stats_error(rb_error *err, int rc, const char *what)
{
    return rb__error(err, rc == RB_ENOMEM ? RB_ENOMEM : RB_EINVAL, RB_NO_OFFSET,
                     "statistics of %s failed (%d)", what, rc);
}

int rb_bundle_compute_scenario(rb_bundle *b, size_t si, rb_error *err)
{
    rb_bundle_scenario *s = &b->scenarios[si];
    size_t n = b->trials, nr = s->nresults;
    if (n == 0 || nr == 0) return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "nothing measured");
    double *times = calloc(nr * n + 2 * n, sizeof *times);
    rb_bundle_pair *pairs = calloc(nr * (nr - 1) / 2 + 1, sizeof *pairs);
    int rc = times && pairs ? RB_OK : rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    double *scratch = times ? times + nr * n : NULL;
    for (size_t ri = 0; rc == RB_OK && ri < nr; ri++) {
        rb_bundle_result *r = &s->results[ri];
        double *xs = times + ri * n;
        rc = trial_times(b, si, ri, xs, n, err);
        if (rc < 0) break;
        int src = rb_stats_median(xs, n, &r->median_ns, scratch);
        if (src == 0) src = rb_stats_minmax(xs, n, &r->min_ns, &r->max_ns);
        if (src == 0) src = rb_stats_mad(xs, n, &r->mad_ns, scratch);
        if (src < 0) {
            rc = stats_error(err, src, r->router);
            break;
        }
        r->trials = n;
        r->lookups_per_s = b->metric == RB_METRIC_TIME ? 1e9 / r->median_ns : 0;
        r->bytes_per_route = s->routes ? (double)r->memory_bytes / (double)s->routes : 0;
        rc = raw_counts(b, si, ri, scratch, n, err);
    }
    size_t np = 0;
    for (size_t a = 0; rc == RB_OK && a < nr; a++) {
        for (size_t c = a + 1; rc == RB_OK && c < nr; c++) {
            rb_bundle_pair *p = &pairs[np++];
            copy_text(p->a, sizeof p->a, s->results[a].router);
            copy_text(p->b, sizeof p->b, s->results[c].router);
            int src =
                rb_metric_exact(b->metric)
                    ? exact_pair(times + a * n, times + c * n, n, b->bootstrap.level,
                                 s->results[a].count_spread + s->results[c].count_spread, &p->r)
                    : rb_stats_paired(times + a * n, times + c * n, n, &b->bootstrap, &p->r);
            if (src < 0) rc = stats_error(err, src, "a pair");
        }
    }
    free(times);
    if (rc < 0) {
        free(pairs);
        return rc;
    }
    free(s->pairs);
    s->pairs = pairs;
    s->npairs = np;
    return RB_OK;
}

/* The ratios r_i = time_base / time_router of one scenario, in round order. */
static int scenario_ratios(const rb_bundle *b, size_t si, size_t base, size_t ri, double *out,
                           rb_error *err)
{
    size_t n = b->trials;
    double *tb = malloc(2 * n * sizeof *tb);
    if (!tb) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    int rc = trial_times(b, si, base, tb, n, err);
    if (rc == RB_OK) rc = trial_times(b, si, ri, tb + n, n, err);
    for (size_t i = 0; rc == RB_OK && i < n; i++) out[i] = tb[i] / tb[n + i];
    free(tb);
    return rc;
}

/* A counted metric: the geometric mean of the scenarios' exact ratios.
 * tol is the widest relative A/A spread of a scenario's two counts (0 when
 * every count is exact): each ratio lies within a factor 1 + tol of its
 * true value, so their geometric mean does too, and the interval says so
 * as exact_pair's does. */
static int exact_geomean(const rb_ratio_set *sets, size_t count, double level, double tol,
                         rb_geomean_result *out)
{
    double *medians = malloc(count * sizeof *medians);
    size_t max_n = 0;
    for (size_t s = 0; s < count; s++)
        if (sets[s].n > max_n) max_n = sets[s].n;
    double *buf = malloc((max_n ? max_n : 1) * sizeof *buf);
    int rc = medians && buf ? 0 : RB_ENOMEM;
    for (size_t s = 0; rc == 0 && s < count; s++)
        rc = rb_stats_median(sets[s].ratios, sets[s].n, &medians[s], buf);
    double g = 0;
    if (rc == 0) rc = rb_stats_geomean(medians, count, &g);
    free(medians);
    free(buf);
    if (rc < 0) return rc;
    double lo = tol > 0 ? g / (1 + tol) : g, hi = tol > 0 ? g * (1 + tol) : g;
    *out = (rb_geomean_result){
        count, g, lo, hi, level, 1.0, tol > 0 ? tol : 0.0, 0, lo > 1.0 || hi < 1.0};
    return 0;
}

bool rb_bundle_is_aside(const rb_bundle *b, const rb_bundle_result *r)
{
    const rb_bundle_router *info = rb_bundle_router_info(b, r->router);
    return r->peer_process || (info && (info->reference || info->peer));
}

static bool faster_row(const rb_bundle *b, const rb_bundle_result *x, const rb_bundle_result *y)
{
    bool ax = rb_bundle_is_aside(b, x), ay = rb_bundle_is_aside(b, y);
    if (ax != ay) return ay;
    double mx = x->median_ns > 0 ? x->median_ns : INFINITY;
    double my = y->median_ns > 0 ? y->median_ns : INFINITY;
    return mx < my;
}

size_t rb_bundle_fastest_first(const rb_bundle *b, const rb_bundle_scenario *s, size_t *idx,
                               size_t cap)
{
    size_t n = s->nresults < cap ? s->nresults : cap;
    for (size_t i = 0; i < n; i++) { /* insertion: a few dozen rows, stable */
        size_t k = i;
        for (; k > 0 && faster_row(b, &s->results[i], &s->results[idx[k - 1]]); k--)
            idx[k] = idx[k - 1];
        idx[k] = i;
    }
    return n;
}

bool rb_bundle_same_tables(const rb_bundle_scenario *x, const rb_bundle_scenario *y)
{
    return x->routes_fp == y->routes_fp && x->requests_fp == y->requests_fp;
}

const char *rb_bundle_mode_name(rb_bundle_mode mode)
{
    static const char *const names[RB_BUNDLE_MODES] = {"throughput", "latency"};
    return (unsigned)mode < RB_BUNDLE_MODES ? names[mode] : "";
}

const char *rb_bundle_cache_name(rb_bundle_cache cache)
{
    static const char *const names[RB_BUNDLE_CACHES] = {"warm", "cold"};
    return (unsigned)cache < RB_BUNDLE_CACHES ? names[cache] : "";
}

bool rb_bundle_is_condition(const rb_bundle *b, size_t si)
{
    if (si >= b->nscenarios) return false;
    const rb_bundle_scenario *s = &b->scenarios[si];
    for (size_t i = 0; i < si; i++) {
        const rb_bundle_scenario *x = &b->scenarios[i];
        if (rb_bundle_same_tables(x, s) && (x->mode != s->mode || x->cache != s->cache))
            return true;
    }
    return false;
}

int rb_bundle_compute_geomeans(rb_bundle *b, rb_error *err)
{
    free(b->geomeans);
    b->geomeans = NULL;
    b->ngeomeans = 0;
    size_t n = b->trials;
    if (n == 0) return RB_OK;
    double *ratios = malloc(b->nscenarios * n * sizeof *ratios + 1);
    rb_ratio_set *sets = malloc(b->nscenarios * sizeof *sets + 1);
    rb_bundle_geomean *gm = calloc(b->nrouters + 1, sizeof *gm);
    int rc = ratios && sets && gm ? RB_OK : rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "no memory");
    size_t ng = 0;
    for (size_t k = 0; rc == RB_OK && k < b->nrouters; k++) {
        const char *name = b->routers[k].name;
        if (strcmp(name, b->baseline) == 0) continue;
        size_t nsets = 0;
        double tol = 0;
        for (size_t si = 0; rc == RB_OK && si < b->nscenarios; si++) {
            const rb_bundle_scenario *s = &b->scenarios[si];
            size_t base = rb_bundle_result_index(s, b->baseline);
            size_t ri = rb_bundle_result_index(s, name);
            /* another condition of a table already counted is not a scenario */
            if (base == SIZE_MAX || ri == SIZE_MAX || rb_bundle_is_condition(b, si)) continue;
            double *r = ratios + nsets * n;
            rc = scenario_ratios(b, si, base, ri, r, err);
            sets[nsets++] = (rb_ratio_set){r, n};
            tol = fmax(tol, s->results[base].count_spread + s->results[ri].count_spread);
        }
        if (rc < 0 || nsets == 0) continue;
        rb_bundle_geomean *g = &gm[ng++];
        copy_text(g->router, sizeof g->router, name);
        copy_text(g->baseline, sizeof g->baseline, b->baseline);
        int src = rb_metric_exact(b->metric)
                      ? exact_geomean(sets, nsets, b->bootstrap.level, tol, &g->g)
                      : rb_stats_geomean_medians(sets, nsets, &b->bootstrap, &g->g);
        if (src < 0) rc = stats_error(err, src, "a geometric mean");
    }
    free(ratios);
    free(sets);
    if (rc < 0) {
        free(gm);
        return rc;
    }
    b->geomeans = gm;
    b->ngeomeans = ng;
    return RB_OK;
}
