/*
 * scenario.c — scenario names, loading, fingerprints (see scenario.h).
 */
#include "scenario.h"

#include "generate.h"
#include "reqgen.h"
#include "base_internal.h"
#include "shipped.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Indexed by rb_gen_shape (generate.h). */
static const char *const shapes[] = {"static", "params", "mixed", "catchall", "glob", "templates"};
_Static_assert(sizeof shapes / sizeof shapes[0] == RB_GEN_SHAPE_COUNT, "a name for every shape");
static const char *const default_shapes[] = {"static", "params", "mixed", "catchall"};
static const size_t default_sizes[] = {100, 1000, 10000};

/* Length of shape without its "-v1" (generator v1) and "-nc" (no
 * conflicts) suffixes, in that order from the end. */
static size_t base_shape_len(const char *shape, bool *no_conflicts, uint32_t *generator)
{
    size_t n = strlen(shape);
    *generator = RB_GEN_DEFAULT;
    if (n > 3 && strncmp(shape + n - 3, "-v1", 3) == 0) {
        *generator = RB_GEN_V1;
        n -= 3;
    }
    *no_conflicts = n > 3 && strncmp(shape + n - 3, "-nc", 3) == 0;
    return *no_conflicts ? n - 3 : n;
}

int rb_scenario_shape_parse(const char *shape, bool *no_conflicts, uint32_t *generator)
{
    size_t n = base_shape_len(shape, no_conflicts, generator);
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        if (strlen(shapes[i]) == n && strncmp(shapes[i], shape, n) == 0) return (int)i;
    return -1;
}

bool rb_scenario_shape_known(const char *shape)
{
    bool nc;
    uint32_t generator;
    return rb_scenario_shape_parse(shape, &nc, &generator) >= 0;
}

void rb_scenario_list_free(rb_scenario_list *l)
{
    free(l->v);
    memset(l, 0, sizeof *l);
}

static rb_scenario_spec *list_push(rb_scenario_list *l, rb_error *err)
{
    if (rb_grow(NULL, &l->v, &l->cap, l->n + 1, sizeof *l->v, 16) < 0) {
        rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory listing scenarios");
        return NULL;
    }
    rb_scenario_spec *s = &l->v[l->n++];
    memset(s, 0, sizeof *s);
    return s;
}

static int add_generated(rb_scenario_list *l, const char *shape, size_t n, rb_error *err)
{
    rb_scenario_spec *s = list_push(l, err);
    if (!s) return RB_ENOMEM;
    s->kind = RB_SCENARIO_GENERATED;
    snprintf(s->shape, sizeof s->shape, "%s", shape);
    s->nroutes = n;
    snprintf(s->name, sizeof s->name, "%s-%zu", shape, n);
    return RB_OK;
}

int rb_scenario_list_add_shape(rb_scenario_list *l, const char *shape, rb_error *err)
{
    if (!rb_scenario_shape_known(shape))
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "unknown shape '%s' (static, params, mixed, catchall, glob, templates; a "
                         "'-nc' suffix for no static/param conflicts, then '-v1' for "
                         "generator v1)",
                         shape);
    for (size_t k = 0; k < sizeof default_sizes / sizeof default_sizes[0]; k++) {
        int rc = add_generated(l, shape, default_sizes[k], err);
        if (rc < 0) return rc;
    }
    return RB_OK;
}

static int add_shipped(rb_scenario_list *l, const char *name, rb_error *err)
{
    rb_scenario_spec s = {.kind = RB_SCENARIO_SHIPPED};
    snprintf(s.name, sizeof s.name, "%s", name);
    if (!rb_shipped_path(name, "routes", s.routes_path, sizeof s.routes_path) ||
        !rb_shipped_path(name, "requests", s.requests_path, sizeof s.requests_path))
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "unknown scenario '%s' (SHAPE-N, SHAPE, default, shipped, or a "
                         "shipped corpus: routebench list)",
                         name);
    rb_scenario_spec *p = list_push(l, err);
    if (!p) return RB_ENOMEM;
    *p = s;
    return RB_OK;
}

/* One entry of a --scenarios list. */
static int add_entry(rb_scenario_list *l, const char *e, size_t len, rb_error *err)
{
    char name[RB_SCENARIO_NAME];
    if (len == 0 || len >= sizeof name)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "empty or too long scenario name");
    memcpy(name, e, len);
    name[len] = '\0';
    if (strcmp(name, "default") == 0) {
        for (size_t i = 0; i < sizeof default_shapes / sizeof default_shapes[0]; i++) {
            int rc = rb_scenario_list_add_shape(l, default_shapes[i], err);
            if (rc < 0) return rc;
        }
        return RB_OK;
    }
    if (strcmp(name, "shipped") == 0) {
        for (size_t i = 0; i < rb_shipped_count(); i++) {
            int rc = add_shipped(l, rb_shipped_name(i), err);
            if (rc < 0) return rc;
        }
        return RB_OK;
    }
    /* A shipped corpus name wins over a shape name ("static" is both). */
    for (size_t i = 0; i < rb_shipped_count(); i++)
        if (strcmp(rb_shipped_name(i), name) == 0) return add_shipped(l, name, err);
    if (rb_scenario_shape_known(name)) return rb_scenario_list_add_shape(l, name, err);
    const char *dash = strrchr(name, '-');
    if (dash) {
        char shape[16];
        size_t slen = (size_t)(dash - name);
        char *end;
        unsigned long long n = strtoull(dash + 1, &end, 10);
        if (slen < sizeof shape && dash[1] >= '0' && dash[1] <= '9' && *end == '\0') {
            memcpy(shape, name, slen);
            shape[slen] = '\0';
            if (rb_scenario_shape_known(shape)) {
                if (n < 1 || n > 1000000)
                    return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                                     "scenario %s: route count must be 1 to 1,000,000", name);
                return add_generated(l, shape, (size_t)n, err);
            }
        }
    }
    return add_shipped(l, name, err);
}

int rb_scenario_list_parse(rb_scenario_list *l, const char *list, rb_error *err)
{
    const char *p = list;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        int rc = add_entry(l, p, len, err);
        if (rc < 0) return rc;
        if (!comma) return RB_OK;
        p = comma + 1;
    }
}

int rb_scenario_list_add_files(rb_scenario_list *l, const char *routes_path,
                               const char *requests_path, rb_error *err)
{
    if (strlen(routes_path) >= RB_SCENARIO_PATH || strlen(requests_path) >= RB_SCENARIO_PATH)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "file name too long");
    rb_scenario_spec *s = list_push(l, err);
    if (!s) return RB_ENOMEM;
    s->kind = RB_SCENARIO_FILES;
    snprintf(s->routes_path, sizeof s->routes_path, "%s", routes_path);
    snprintf(s->requests_path, sizeof s->requests_path, "%s", requests_path);
    const char *base = strrchr(routes_path, '/');
    base = base ? base + 1 : routes_path;
    size_t n = strcspn(base, ".");
    if (n == 0) n = strlen(base);
    snprintf(s->name, sizeof s->name, "%.*s", (int)(n < 100 ? n : 100), base);
    /* names go into CSV and JSON: keep them plain */
    for (char *c = s->name; *c; c++)
        if (*c == ',' || *c == '"' || (unsigned char)*c < 0x20) *c = '_';
    return RB_OK;
}

int rb_scenario_generate(const char *shape, size_t nroutes, uint64_t seed, size_t nrequests,
                         double miss, rb_route_table *routes, rb_request_table *requests,
                         rb_error *err)
{
    memset(routes, 0, sizeof *routes);
    memset(requests, 0, sizeof *requests);
    /* The configuration of `routebench corpus gen`, so that
     *   routebench corpus gen --shape S --routes N --seed SEED --out P
     * writes exactly these tables (same fingerprints). */
    rb_gen_config g = {0};
    g.routes = nroutes;
    g.seed = seed;
    g.shape = rb_scenario_shape_parse(shape, &g.no_conflicts, &g.generator);
    if (g.shape < 0) return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "unknown shape '%s'", shape);
    rb_reqgen_config q;
    rb_reqgen_config_init(&q);
    q.count = nrequests;
    q.miss_ppm = (uint32_t)(miss * 1e6 + 0.5);
    q.seed = seed;
    int rc = rb_corpus_generate(&g, routes, err);
    if (rc == RB_OK) rc = rb_requests_generate(routes, &q, requests, NULL, err);
    if (rc < 0) {
        rb_route_table_free(routes);
        memset(routes, 0, sizeof *routes);
    }
    return rc;
}

int rb_scenario_load(const rb_scenario_spec *spec, uint64_t seed, rb_scenario *out, rb_error *err)
{
    memset(out, 0, sizeof *out);
    out->spec = *spec;
    int rc;
    if (spec->kind == RB_SCENARIO_GENERATED) {
        out->seed = seed;
        rc = rb_scenario_generate(spec->shape, spec->nroutes, seed, RB_SCENARIO_REQUESTS,
                                  RB_SCENARIO_MISS, &out->routes, &out->requests, err);
    } else {
        rc = rb_route_table_read(spec->routes_path, &out->routes, err);
        if (rc == RB_OK) rc = rb_request_table_read(spec->requests_path, &out->requests, err);
    }
    if (rc == RB_OK && out->requests.count == 0)
        rc = rb__error(err, RB_EFORMAT, RB_NO_OFFSET, "scenario %s has no requests", spec->name);
    if (rc == RB_OK && out->routes.count == 0)
        rc = rb__error(err, RB_EFORMAT, RB_NO_OFFSET, "scenario %s has no routes", spec->name);
    /* a requests file made for another table is an input error, not a
     * router's disagreement */
    if (rc == RB_OK && spec->kind != RB_SCENARIO_GENERATED)
        rc = rb_request_table_check_routes(&out->requests, spec->requests_path, &out->routes,
                                           spec->routes_path, err);
    if (rc < 0) {
        rb_scenario_free(out);
        return rc;
    }
    if (spec->kind == RB_SCENARIO_GENERATED) {
        bool nc;
        rb_scenario_shape_parse(spec->shape, &nc, &out->generator);
    }
    rb_scenario_depths(&out->routes, out->depth, RB_SCENARIO_DEPTHS);
    out->routes_fp = rb_route_table_fingerprint(&out->routes);
    out->requests_fp = rb_request_table_fingerprint(&out->requests);
    out->features = rb_route_table_features(&out->routes);
    return RB_OK;
}

void rb_scenario_free(rb_scenario *s)
{
    rb_route_table_free(&s->routes);
    rb_request_table_free(&s->requests);
}

void rb_scenario_depths(const rb_route_table *t, size_t *depth, size_t cap)
{
    memset(depth, 0, cap * sizeof *depth);
    for (size_t i = 0; i < t->count; i++) {
        const char *p = rb_route_pattern(t, i);
        size_t d = 0;
        for (uint32_t k = 0; k < t->routes[i].len; k++) d += p[k] == '/';
        depth[d < cap - 1 ? d : cap - 1]++;
    }
}

int rb_scenario_gen_command(const char *shape, size_t nroutes, uint64_t seed, char *buf, size_t cap)
{
    bool nc;
    uint32_t generator;
    int k = rb_scenario_shape_parse(shape, &nc, &generator);
    return snprintf(
        buf, cap,
        "routebench corpus gen --shape %s%s --generator v%u --routes %zu --seed %llu --out PREFIX",
        rb_gen_shape_name(k), nc ? " --no-conflicts" : "", generator, nroutes,
        (unsigned long long)seed);
}
