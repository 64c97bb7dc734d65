/*
 * reqgen.c — request tables with EXPECTED from linear (see reqgen.h).
 */
#include "reqgen.h"

#include "fill.h"
#include "oracle.h"
#include "shape_tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MISS_TRIES 8
#define PATH_CAP   4096

typedef struct reqgen {
    const rb_reqgen_config *cfg;
    rb_shape_tree st;
    rb_oracle oracle;
    rb_rng rng;
    uint32_t *ids; /* routes that can be picked (not shape duplicates) */
    size_t nids;
    uint64_t *cumulative; /* Zipf: cumulative weights over ids (ranked) */
    rb_request_table *out;
    rb_reqgen_report *rep;
    char path[PATH_CAP];
    size_t len;
} reqgen;

int rb_req_dist_parse(const char *name)
{
    if (strcmp(name, "uniform") == 0) return RB_DIST_UNIFORM;
    if (strcmp(name, "zipf") == 0) return RB_DIST_ZIPF;
    return -1;
}

static uint32_t below(reqgen *q, uint64_t n)
{
    return (uint32_t)rb_rng_below(&q->rng, n);
}

/* Zipf with exponent 1 over a seeded ranking: route ids[k] (after a
 * Fisher-Yates shuffle) has weight floor(2^32 / (k + 1)). */
static int prepare_zipf(reqgen *q)
{
    for (size_t i = q->nids; i > 1; i--) {
        size_t j = below(q, i);
        uint32_t t = q->ids[i - 1];
        q->ids[i - 1] = q->ids[j];
        q->ids[j] = t;
    }
    q->cumulative = malloc(q->nids * sizeof *q->cumulative);
    if (!q->cumulative) return RB_ENOMEM;
    uint64_t sum = 0;
    for (size_t k = 0; k < q->nids; k++) {
        sum += (UINT64_C(1) << 32) / (k + 1);
        q->cumulative[k] = sum;
    }
    return RB_OK;
}

static uint32_t pick_route(reqgen *q)
{
    if (!q->cumulative) return q->ids[below(q, q->nids)];
    uint64_t x = rb_rng_below(&q->rng, q->cumulative[q->nids - 1]);
    size_t lo = 0, hi = q->nids - 1; /* first k with cumulative[k] > x */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (q->cumulative[mid] > x)
            hi = mid;
        else
            lo = mid + 1;
    }
    return q->ids[lo];
}

static int ask(reqgen *q, int method, rb_match *m, rb_error *err)
{
    return rb_oracle_lookup(&q->oracle, method, q->path, q->len, m, err);
}

static int32_t expected_of(const rb_match *m)
{
    if (m->outcome == RB_FOUND) return (int32_t)m->route_id;
    return m->outcome == RB_METHOD_NOT_ALLOWED ? RB_EXPECT_NOT_ALLOWED : RB_EXPECT_NOT_FOUND;
}

static int fill(reqgen *q, uint32_t r, rb_error *err)
{
    q->len = rb_fill_path(&q->st, r, &q->rng, q->path, sizeof q->path);
    if (q->len == 0)
        return rb__error(err, RB_ELIMIT, RB_NO_OFFSET,
                         "route %u: a request path would exceed %d bytes", r + 1u, PATH_CAP);
    return RB_OK;
}

/* Segment i of the path: [*b, *e); returns false when there is none. */
static bool segment(const reqgen *q, size_t i, size_t *b, size_t *e)
{
    size_t at = 1, k = 0;
    for (;;) {
        const char *slash = memchr(q->path + at, '/', q->len - at);
        size_t end = slash ? (size_t)(slash - q->path) : q->len;
        if (k == i) {
            *b = at;
            *e = end;
            return true;
        }
        if (!slash) return false;
        at = end + 1;
        k++;
    }
}

static size_t count_segments(const reqgen *q)
{
    size_t n = 1;
    for (size_t i = 1; i < q->len; i++) n += q->path[i] == '/';
    return n;
}

/* Replace path[b, e) with s[0, n); false when it would not fit. */
static bool splice(reqgen *q, size_t b, size_t e, const char *s, size_t n)
{
    if (q->len - (e - b) + n > sizeof q->path) return false;
    memmove(q->path + b + n, q->path + e, q->len - e);
    memcpy(q->path + b, s, n);
    q->len = q->len - (e - b) + n;
    return true;
}

/* One random mutation of the path. */
static void mutate(reqgen *q)
{
    char v[16];
    size_t vn = rb_fill_value(&q->st, &q->rng, v);
    size_t nseg = count_segments(q), b, e;
    size_t i = below(q, nseg);
    switch (below(q, 6)) {
    case 0: /* append a segment */
        if (q->len + 1 + vn <= sizeof q->path) {
            q->path[q->len++] = '/';
            memcpy(q->path + q->len, v, vn);
            q->len += vn;
        }
        break;
    case 1: /* replace a segment */
        if (segment(q, i, &b, &e)) splice(q, b, e, v, vn);
        break;
    case 2: /* drop the last segment (or replace the only one) */
        if (nseg > 1 && segment(q, nseg - 1, &b, &e))
            q->len = b - 1;
        else if (segment(q, 0, &b, &e))
            splice(q, b, e, v, vn);
        break;
    case 3: /* a trailing slash */
        if (q->len < sizeof q->path) q->path[q->len++] = '/';
        break;
    case 4: /* flip the case of the first letter of a segment */
        if (segment(q, i, &b, &e)) {
            size_t k = b;
            while (k < e && !((q->path[k] >= 'a' && q->path[k] <= 'z') ||
                              (q->path[k] >= 'A' && q->path[k] <= 'Z')))
                k++;
            if (k < e)
                q->path[k] ^= 0x20;
            else
                splice(q, b, e, v, vn);
        }
        break;
    default: /* a new first segment */
        if (q->len + 1 + vn <= sizeof q->path) {
            memmove(q->path + 1 + vn, q->path, q->len);
            q->path[0] = '/';
            memcpy(q->path + 1, v, vn);
            q->len += 1 + vn;
        }
        break;
    }
}

static int emit(reqgen *q, int method, const rb_match *m)
{
    int32_t x = expected_of(m);
    q->rep->expect_found += x >= 0;
    q->rep->expect_not_found += x == RB_EXPECT_NOT_FOUND;
    q->rep->expect_not_allowed += x == RB_EXPECT_NOT_ALLOWED;
    return rb_request_table_append(q->out, method, q->path, q->len, x, 0);
}

static int miss(reqgen *q, rb_error *err)
{
    rb_match m;
    int method = RB_GET;
    for (int t = 0; t < MISS_TRIES; t++) {
        uint32_t r = pick_route(q);
        int rc = fill(q, r, err);
        if (rc < 0) return rc;
        method = rb_fill_method(&q->st, r, &q->rng);
        mutate(q);
        if (below(q, 2)) mutate(q);
        rc = ask(q, method, &m, err);
        if (rc < 0) return rc;
        if (m.outcome == RB_NOT_FOUND) break;
        if (t == MISS_TRIES - 1) q->rep->misses_matched++;
    }
    q->rep->misses++;
    return emit(q, method, &m);
}

static int hit(reqgen *q, bool wrong, rb_error *err)
{
    uint32_t r = pick_route(q);
    int rc = fill(q, r, err);
    if (rc < 0) return rc;
    int method = rb_fill_method(&q->st, r, &q->rng);
    int own = q->st.table->routes[r].method;
    wrong = wrong && own != RB_ANY;
    if (wrong) {
        method = (int)below(q, RB_METHOD_COUNT - 1);
        if (method >= own) method++; /* any method but its own */
    }
    rb_match m;
    rc = ask(q, method, &m, err);
    if (rc < 0) return rc;
    if (wrong) {
        q->rep->wrong_method++;
    } else {
        q->rep->hits++;
        if (m.outcome != RB_FOUND || m.route_id != r) q->rep->hits_taken++;
    }
    return emit(q, method, &m);
}

static int prepare(reqgen *q, const rb_route_table *routes, rb_error *err)
{
    int rc = rb_shape_tree_build(routes, &q->st, err);
    if (rc < 0) return rc;
    rb_oracle_init(&q->oracle, &q->st);
    if (q->st.nduplicates) {
        for (size_t r = 0; r < routes->count; r++) {
            if (q->st.dup_of[r] == RB_ST_NONE) continue;
            const rb_route_entry *e = &routes->routes[r], *f = &routes->routes[q->st.dup_of[r]];
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                             "route line %zu repeats the method and shape of line %zu (every "
                             "router refuses it); run routebench corpus check",
                             e->line ? e->line : r + 1, f->line ? f->line : q->st.dup_of[r] + 1u);
        }
    }
    q->ids = malloc(routes->count * sizeof *q->ids);
    if (!q->ids) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    for (size_t r = 0; r < routes->count; r++) q->ids[q->nids++] = (uint32_t)r;
    if (q->cfg->dist == RB_DIST_ZIPF && prepare_zipf(q) < 0)
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    return RB_OK;
}

void rb_reqgen_config_init(rb_reqgen_config *cfg)
{
    *cfg = (rb_reqgen_config){RB_REQGEN_DEFAULT_COUNT, (uint32_t)(RB_REQGEN_DEFAULT_MISS * 1e6),
                              (uint32_t)(RB_REQGEN_DEFAULT_WRONG * 1e6), 1, RB_DIST_UNIFORM};
}

/* The start both entry points share: OUT and REP emptied, the table's
 * limits checked, the generator state allocated and prepared (the oracle
 * and shape tree of ROUTES).  *RC is the outcome; the state is returned
 * also on a failed prepare, for reqgen_close to free. */
static reqgen *reqgen_open(const rb_route_table *routes, const rb_reqgen_config *cfg,
                           rb_request_table *out, rb_reqgen_report *rep, int *rc, rb_error *err)
{
    memset(out, 0, sizeof *out);
    memset(rep, 0, sizeof *rep);
    if (routes->count == 0) {
        *rc = rb__error(err, RB_EINVAL, RB_NO_OFFSET, "the routes table has no routes");
        return NULL;
    }
    if (routes->count > UINT32_MAX / 2) {
        *rc = rb__error(err, RB_EINVAL, RB_NO_OFFSET, "too many routes");
        return NULL;
    }
    reqgen *q = calloc(1, sizeof *q);
    if (!q) {
        *rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
        return NULL;
    }
    q->cfg = cfg;
    q->out = out;
    q->rep = rep;
    rb_rng_seed(&q->rng, cfg->seed);
    *rc = prepare(q, routes, err);
    return q;
}

/* The end both share: OUT stamped with the routes' fingerprint, the
 * report's counts, the state freed; OUT emptied when RC is an error. */
static int reqgen_close(reqgen *q, const rb_route_table *routes, int rc)
{
    q->out->routes_fp = rb_route_table_fingerprint(routes);
    q->out->has_routes_fp = true;
    q->rep->requests = q->out->count;
    q->rep->lookups = q->oracle.lookups;
    q->rep->candidates = q->oracle.candidates;
    if (rc < 0) rb_request_table_free(q->out);
    rb_oracle_free(&q->oracle);
    if (q->st.table) rb_shape_tree_free(&q->st);
    free(q->ids);
    free(q->cumulative);
    free(q);
    return rc;
}

int rb_requests_generate(const rb_route_table *routes, const rb_reqgen_config *cfg,
                         rb_request_table *out, rb_reqgen_report *rep, rb_error *err)
{
    rb_reqgen_report local;
    if (!rep) rep = &local;
    memset(out, 0, sizeof *out);
    memset(rep, 0, sizeof *rep);
    if (cfg->count < 1 || cfg->count > RB_REQGEN_MAX_COUNT)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "--count must be from 1 to %u, got %zu",
                         RB_REQGEN_MAX_COUNT, cfg->count);
    if (cfg->miss_ppm > 1000000 || cfg->wrong_method_ppm > 1000000)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "a ratio is above 1");
    if (cfg->dist != RB_DIST_UNIFORM && cfg->dist != RB_DIST_ZIPF)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "unknown distribution %d", cfg->dist);

    int rc;
    reqgen *q = reqgen_open(routes, cfg, out, rep, &rc, err);
    if (!q) return rc;

    /* exact counts at random positions (selection sampling) */
    uint64_t n = cfg->count;
    uint64_t misses = (n * cfg->miss_ppm + 500000) / 1000000;
    uint64_t wrongs = ((n - misses) * cfg->wrong_method_ppm + 500000) / 1000000;
    uint64_t slots = n, hit_slots = n - misses;
    for (size_t i = 0; rc == RB_OK && i < n; i++, slots--) {
        if (rb_rng_below(&q->rng, slots) < misses) {
            misses--;
            rc = miss(q, err);
        } else {
            bool wrong = rb_rng_below(&q->rng, hit_slots) < wrongs;
            wrongs -= wrong;
            hit_slots--;
            rc = hit(q, wrong, err);
        }
        if (rc == RB_ENOMEM) rb__error(err, rc, RB_NO_OFFSET, "out of memory");
    }
    return reqgen_close(q, routes, rc);
}

int rb_requests_expect(const rb_route_table *routes, const rb_request_table *paths,
                       rb_request_table *out, rb_reqgen_report *rep, rb_error *err)
{
    rb_reqgen_report local;
    if (!rep) rep = &local;
    rb_reqgen_config cfg;
    rb_reqgen_config_init(&cfg);
    int rc;
    reqgen *q = reqgen_open(routes, &cfg, out, rep, &rc, err);
    if (!q) return rc;
    for (size_t i = 0; rc == RB_OK && i < paths->count; i++) {
        const rb_request *r = &paths->reqs[i];
        const char *path = rb_request_path(paths, i);
        rb_match m;
        int lr = rb_oracle_lookup(&q->oracle, r->method, path, r->len, &m, err);
        if (lr < 0) {
            rc = lr;
            break;
        }
        int32_t x = expected_of(&m);
        rep->expect_found += x >= 0;
        rep->expect_not_found += x == RB_EXPECT_NOT_FOUND;
        rep->expect_not_allowed += x == RB_EXPECT_NOT_ALLOWED;
        rc = rb_request_table_append(out, r->method, path, r->len, x, r->line);
        if (rc == RB_ENOMEM) rb__error(err, rc, RB_NO_OFFSET, "out of memory");
    }
    return reqgen_close(q, routes, rc);
}
