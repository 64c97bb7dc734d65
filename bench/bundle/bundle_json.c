/*
 * bundle_json.c — summary.json (schema in bundle.h and docs/measurement.md):
 * writing a bundle and reading one back.
 *
 * Numbers are written with the fewest digits (15 to 17) that read back to
 * the same double, so a bundle read back renders exactly what the run
 * rendered; integers that may exceed 2^53 (fingerprints, checksums, the
 * bootstrap seed) are 16-digit hex strings.
 */
#include "bundle.h"
#include "ecosystem.h"
#include "feature_names.h"
#include "verdict.h"

#include "base_internal.h"

#include <cJSON.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the fields, described once ------------------------------------------- */

/* How a field is spelled in summary.json and stored in its struct.  The
 * writer and the reader walk the same rows (as the option tables of
 * bench/options/options.h do with offsetof), and tests/test_schema.c checks
 * every row against docs/measurement.md's schema. */
typedef enum json_type {
    J_STR,             /* char[]: a string */
    J_STR_OR_NULL,     /* char[]: a string, or null when empty */
    J_STR_ADDED,       /* char[]: as J_STR_OR_NULL, added within the version: absent in
                          older files (read: empty) */
    J_DOUBLE,          /* double: a number (null when not finite) */
    J_DOUBLE_OR_NULL,  /* double: a number, or null when negative (read: -1) */
    J_DOUBLE_INF_NULL, /* double: a number, or null when infinite (read: INFINITY) */
    J_INT_OR_NULL,     /* int: a number, or null when negative (read: -1) */
    J_COUNT,           /* unsigned (or long >= 0) of 4 or 8 bytes: a count */
    J_BOOL,            /* bool or int: true or false */
    J_HEX64,           /* uint64_t: 16 hex digits */
} json_type;

typedef struct json_field {
    const char *key;
    json_type type;
    size_t offset, size;
    int since; /* the schema version that added it */
} json_field;

#define JF(st, key, type, member, since)                                                           \
    {                                                                                              \
        key, type, offsetof(st, member), sizeof(((st *)0)->member), since                          \
    }

static const json_field tool_fields[] = {
    JF(rb_bundle, "version", J_STR, version, 1),
    JF(rb_bundle, "commit", J_STR, commit, 1),
    JF(rb_bundle, "compiler", J_STR, compiler, 1),
    JF(rb_bundle, "flags", J_STR, flags, 1),
    JF(rb_bundle, "build_type", J_STR, build_type, 1),
    JF(rb_bundle, "optimized", J_BOOL, optimized, 1),
    JF(rb_bundle, "sanitized", J_BOOL, sanitized, 1),
    JF(rb_bundle, "valgrind", J_STR_ADDED, valgrind, 2),
};

static const json_field machine_fields[] = {
    JF(rb_bundle, "cpu_model", J_STR, cpu_model, 1),
    JF(rb_bundle, "cpu_vendor", J_STR_ADDED, cpu_vendor, 2),
    JF(rb_bundle, "cpu_family", J_STR_ADDED, cpu_family, 2),
    JF(rb_bundle, "cores", J_COUNT, cores, 1),
    JF(rb_bundle, "kernel", J_STR, kernel, 1),
    JF(rb_bundle, "governor", J_STR_OR_NULL, governor, 1),
    JF(rb_bundle, "loadavg_start", J_DOUBLE_OR_NULL, loadavg_start, 1),
    JF(rb_bundle, "loadavg_end", J_DOUBLE_OR_NULL, loadavg_end, 1),
    JF(rb_bundle, "pinned_cpu", J_INT_OR_NULL, pinned_cpu, 1),
};

static const json_field seeds_fields[] = {
    JF(rb_bundle, "corpus", J_COUNT, seed, 1),
    JF(rb_bundle, "bootstrap", J_HEX64, bootstrap.seed, 1),
    JF(rb_bundle, "order", J_HEX64, order_seed, 2),
};

/* protocol: these, then the texts that follow from the metric and clock,
 * then protocol_tail_fields */
static const json_field protocol_fields[] = {
    JF(rb_bundle, "trials", J_COUNT, trials, 1),
    JF(rb_bundle, "warmup", J_COUNT, warmup, 1),
    JF(rb_bundle, "min_trial_ms", J_DOUBLE, min_trial_ms, 1),
};

static const json_field protocol_tail_fields[] = {
    JF(rb_bundle, "bootstrap_resamples", J_COUNT, bootstrap.resamples, 1),
    JF(rb_bundle, "confidence_level", J_DOUBLE, bootstrap.level, 1),
};

static const json_field pair_fields[] = {
    JF(rb_bundle_pair, "a", J_STR, a, 1),
    JF(rb_bundle_pair, "b", J_STR, b, 1),
    JF(rb_bundle_pair, "n", J_COUNT, r.n, 1),
    JF(rb_bundle_pair, "median", J_DOUBLE, r.median, 1),
    JF(rb_bundle_pair, "lo", J_DOUBLE, r.lo, 1),
    JF(rb_bundle_pair, "hi", J_DOUBLE, r.hi, 1),
    JF(rb_bundle_pair, "coverage", J_DOUBLE, r.coverage, 2),
    JF(rb_bundle_pair, "mde", J_DOUBLE_INF_NULL, r.mde, 2),
    JF(rb_bundle_pair, "too_few", J_BOOL, r.too_few, 2),
    JF(rb_bundle_pair, "wins", J_COUNT, r.wins, 1),
    JF(rb_bundle_pair, "losses", J_COUNT, r.losses, 1),
    JF(rb_bundle_pair, "excludes_one", J_BOOL, r.excludes_one, 1),
};

static const json_field geomean_fields[] = {
    JF(rb_bundle_geomean, "router", J_STR, router, 1),
    JF(rb_bundle_geomean, "baseline", J_STR, baseline, 1),
    JF(rb_bundle_geomean, "scenarios", J_COUNT, g.scenarios, 1),
    JF(rb_bundle_geomean, "geomean", J_DOUBLE, g.geomean, 1),
    JF(rb_bundle_geomean, "lo", J_DOUBLE, g.lo, 1),
    JF(rb_bundle_geomean, "hi", J_DOUBLE, g.hi, 1),
    JF(rb_bundle_geomean, "coverage", J_DOUBLE, g.coverage, 2),
    JF(rb_bundle_geomean, "mde", J_DOUBLE_INF_NULL, g.mde, 2),
    JF(rb_bundle_geomean, "too_few", J_BOOL, g.too_few, 2),
    JF(rb_bundle_geomean, "excludes_one", J_BOOL, g.excludes_one, 1),
};

static const json_field library_fields[] = {
    JF(rb_bundle_library, "router", J_STR, router, 2),
    JF(rb_bundle_library, "path", J_STR, path, 2),
    JF(rb_bundle_library, "size", J_COUNT, size, 2),
    JF(rb_bundle_library, "xxh3", J_HEX64, hash, 2),
    JF(rb_bundle_library, "commit", J_STR_OR_NULL, commit, 2),
};

static const json_field differ_fields[] = {
    JF(rb_bundle_differ, "method", J_STR, method, 2),
    JF(rb_bundle_differ, "path", J_STR, path, 2),
    JF(rb_bundle_differ, "expected", J_STR, expected, 2),
    JF(rb_bundle_differ, "got", J_STR, got, 2),
};

typedef struct json_table {
    const char *object; /* as docs/measurement.md's schema names it */
    const json_field *rows;
    size_t n;
} json_table;

#define JF_N(rows) (sizeof rows / sizeof rows[0])
#define JF_TABLE(object, rows)                                                                     \
    {                                                                                              \
        object, rows, sizeof rows / sizeof rows[0]                                                 \
    }

static const json_table json_tables[] = {
    JF_TABLE("tool", tool_fields),
    JF_TABLE("machine", machine_fields),
    JF_TABLE("seeds", seeds_fields),
    JF_TABLE("protocol", protocol_fields),
    JF_TABLE("protocol", protocol_tail_fields),
    JF_TABLE("scenarios[].pairs[]", pair_fields),
    JF_TABLE("geomeans[]", geomean_fields),
    JF_TABLE("libraries[]", library_fields),
    JF_TABLE("scenarios[].results[].differs[]", differ_fields),
};

size_t rb_bundle_json_tables(void)
{
    return sizeof json_tables / sizeof json_tables[0];
}

const char *rb_bundle_json_field(size_t table, size_t i, const char **object, int *since)
{
    if (table >= rb_bundle_json_tables() || i >= json_tables[table].n) return NULL;
    const json_field *f = &json_tables[table].rows[i];
    if (object) *object = json_tables[table].object;
    if (since) *since = f->since;
    return f->key;
}

static uint64_t load_count(const void *p, size_t size)
{
    if (size == sizeof(uint32_t)) {
        uint32_t v;
        memcpy(&v, p, sizeof v);
        return v;
    }
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static void store_count(void *p, size_t size, uint64_t v)
{
    if (size == sizeof(uint32_t)) {
        uint32_t n = (uint32_t)v;
        memcpy(p, &n, sizeof n);
    } else {
        memcpy(p, &v, sizeof v);
    }
}

static bool load_bool(const void *p, size_t size)
{
    return size == sizeof(bool) ? *(const bool *)p : *(const int *)p != 0;
}

static void store_bool(void *p, size_t size, bool v)
{
    if (size == sizeof(bool))
        *(bool *)p = v;
    else
        *(int *)p = v;
}

/* ---- writing -------------------------------------------------------------- */

static cJSON *num(double v)
{
    if (!isfinite(v)) return cJSON_CreateNull();
    char text[40];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, v);
        if (strtod(text, NULL) == v) break;
    }
    return cJSON_CreateRaw(text);
}

static cJSON *hex64(uint64_t v)
{
    char text[17];
    snprintf(text, sizeof text, "%016" PRIx64, v);
    return cJSON_CreateString(text);
}

static cJSON *str_or_null(const char *s)
{
    return s && *s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

/* cJSON_Add* return NULL on allocation failure; one flag catches them all. */
typedef struct jw {
    bool failed;
} jw;

static cJSON *add(jw *w, cJSON *obj, const char *key, cJSON *item)
{
    if (!item || !cJSON_AddItemToObject(obj, key, item)) {
        cJSON_Delete(item);
        w->failed = true;
        return NULL;
    }
    return item;
}

static cJSON *push(jw *w, cJSON *arr, cJSON *item)
{
    if (!arr || !item || !cJSON_AddItemToArray(arr, item)) {
        cJSON_Delete(item);
        w->failed = true;
        return NULL;
    }
    return item;
}

static void add_str(jw *w, cJSON *o, const char *k, const char *v)
{
    if (o) add(w, o, k, cJSON_CreateString(v));
}

static void add_num(jw *w, cJSON *o, const char *k, double v)
{
    if (o) add(w, o, k, num(v));
}

static void add_bool(jw *w, cJSON *o, const char *k, bool v)
{
    if (o) add(w, o, k, cJSON_CreateBool(v));
}

/* Write the rows of fields from the struct at base into o. */
static void write_fields(jw *w, cJSON *o, const json_field *fields, size_t n, const void *base)
{
    for (size_t i = 0; o && i < n; i++) {
        const json_field *f = &fields[i];
        const char *p = (const char *)base + f->offset;
        double d;
        switch (f->type) {
        case J_STR:
            add_str(w, o, f->key, p);
            break;
        case J_STR_OR_NULL:
        case J_STR_ADDED:
            add(w, o, f->key, str_or_null(p));
            break;
        case J_DOUBLE:
        case J_DOUBLE_INF_NULL: /* num(): null when not finite */
            memcpy(&d, p, sizeof d);
            add_num(w, o, f->key, d);
            break;
        case J_DOUBLE_OR_NULL:
            memcpy(&d, p, sizeof d);
            add(w, o, f->key, d >= 0 ? num(d) : cJSON_CreateNull());
            break;
        case J_INT_OR_NULL: {
            int v;
            memcpy(&v, p, sizeof v);
            add(w, o, f->key, v >= 0 ? num(v) : cJSON_CreateNull());
            break;
        }
        case J_COUNT:
            add_num(w, o, f->key, (double)load_count(p, f->size));
            break;
        case J_BOOL:
            add_bool(w, o, f->key, load_bool(p, f->size));
            break;
        case J_HEX64:
            add(w, o, f->key, hex64(load_count(p, f->size)));
            break;
        }
    }
}

/* "median_ns", "median_instructions", ...: a per-lookup statistic named by
 * the bundle's metric. */
static const char *value_key(const rb_bundle *b, const char *stat, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s_%s", stat, rb_metric_key(b->metric));
    return buf;
}

static void write_result(jw *w, cJSON *arr, const rb_bundle *b, const rb_bundle_result *r)
{
    cJSON *o = push(w, arr, cJSON_CreateObject());
    if (!o) return;
    char key[64];
    add_str(w, o, "router", r->router);
    add_num(w, o, "trials", (double)r->trials);
    add_num(w, o, value_key(b, "median", key, sizeof key), r->median_ns);
    add_num(w, o, value_key(b, "min", key, sizeof key), r->min_ns);
    add_num(w, o, value_key(b, "max", key, sizeof key), r->max_ns);
    add_num(w, o, value_key(b, "mad", key, sizeof key), r->mad_ns);
    add(w, o, "lookups_per_s",
        b->metric == RB_METRIC_TIME ? num(r->lookups_per_s) : cJSON_CreateNull());
    if (rb_metric_exact(b->metric)) add_num(w, o, "instructions_per_lookup", r->ir_per_lookup);
    if (b->metric == RB_METRIC_CYCLES_EST) {
        add_num(w, o, "data_refs_per_lookup", r->data_refs_per_lookup);
        add_num(w, o, "l1_misses_per_lookup", r->l1_misses_per_lookup);
        add_num(w, o, "ll_misses_per_lookup", r->ll_misses_per_lookup);
    }
    add_num(w, o, "memory_bytes", (double)r->memory_bytes);
    add_num(w, o, "bytes_per_route", r->bytes_per_route);
    add_num(w, o, "build_ns", (double)r->build_ns);
    add_num(w, o, "replays_per_trial", (double)r->replays_per_trial);
    add_num(w, o, "lookups_per_trial", (double)r->lookups_per_trial);
    add(w, o, "checksum", hex64(r->checksum));
    add_num(w, o, "disagreements", (double)r->disagreements);
    add_num(w, o, "disturbed_trials", (double)r->disturbed_trials);
    add_num(w, o, "short_trials", (double)r->short_trials);
    add_bool(w, o, "recalibrated", r->recalibrated);
    add(w, o, "rss_growth_bytes",
        r->rss_growth_bytes >= 0 ? num((double)r->rss_growth_bytes) : cJSON_CreateNull());
    add_bool(w, o, "peer_process", r->peer_process);
    if (r->peer_process) add_num(w, o, "disagree_linear", (double)r->disagree_linear);
    if (r->count_spread > 0) add_num(w, o, "count_spread", r->count_spread);
    if (!r->ndiffers) return; /* absent: none recorded */
    cJSON *d = add(w, o, "differs", cJSON_CreateArray());
    for (size_t i = 0; d && i < r->ndiffers; i++)
        write_fields(w, push(w, d, cJSON_CreateObject()), differ_fields, JF_N(differ_fields),
                     &r->differs[i]);
}

static void write_pair(jw *w, cJSON *arr, const rb_bundle_pair *p)
{
    cJSON *o = push(w, arr, cJSON_CreateObject());
    write_fields(w, o, pair_fields, sizeof pair_fields / sizeof pair_fields[0], p);
}

/* The conditions of a scenario, who refused the table, auto's pick. */
static void write_conditions(jw *w, cJSON *o, const rb_bundle_scenario *s)
{
    add_str(w, o, "mode", rb_bundle_mode_name(s->mode));
    add_str(w, o, "cache", rb_bundle_cache_name(s->cache));
    bool cold = s->cache == RB_BUNDLE_COLD;
    add(w, o, "app_bytes", cold ? num((double)s->app_bytes) : cJSON_CreateNull());
    add(w, o, "app_ns_per_lookup", cold ? num(s->app_ns) : cJSON_CreateNull());
    add(w, o, "app_mad_ns", cold ? num(s->app_mad_ns) : cJSON_CreateNull());
    cJSON *refused = add(w, o, "refused", cJSON_CreateArray());
    for (size_t i = 0; refused && i < s->nrefused; i++) {
        cJSON *x = push(w, refused, cJSON_CreateObject());
        add_str(w, x, "router", s->refused[i].router);
        add_str(w, x, "reason", s->refused[i].reason);
    }
    if (!*s->auto_choice) {
        add(w, o, "auto", cJSON_CreateNull());
        return;
    }
    cJSON *a = add(w, o, "auto", cJSON_CreateObject());
    add_str(w, a, "choice", s->auto_choice);
    add_str(w, a, "why", s->auto_why);
}

static const char *const auto_status_names[] = {"absent", "winner",   "tied", "behind",
                                                "loses",  "unranked", "top"};

static void write_lead(jw *w, cJSON *o, const char *key, const rb_paired_result *p)
{
    cJSON *x = add(w, o, key, cJSON_CreateObject());
    add_num(w, x, "median", p->median);
    add_num(w, x, "lo", p->lo);
    add_num(w, x, "hi", p->hi);
    add_num(w, x, "n", (double)p->n);
    add_bool(w, x, "excludes_one", p->excludes_one != 0);
}

/* The verdict (verdict.h): written for readers, recomputed when read. */
static void write_verdict(jw *w, cJSON *o, const rb_bundle *b, size_t si)
{
    rb_verdict v;
    if (rb_verdict_scenario(b, si, &v) < 0) return;
    cJSON *x = add(w, o, "verdict", cJSON_CreateObject());
    add(w, x, "fastest", str_or_null(v.fastest));
    add(w, x, "runner_up", str_or_null(v.runner_up));
    if (*v.runner_up)
        write_lead(w, x, "lead", &v.lead);
    else if (x)
        add(w, x, "lead", cJSON_CreateNull());
    add_bool(w, x, "significant", v.significant);
    cJSON *top = add(w, x, "top", cJSON_CreateArray());
    for (const char *p = v.top; top && *p;) {
        size_t n = strcspn(p, ",");
        char name[RB_BUNDLE_NAME];
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        push(w, top, cJSON_CreateString(name));
        p += n;
        while (*p == ',' || *p == ' ') p++;
    }
    add(w, x, "smallest", str_or_null(v.smallest));
    add_num(w, x, "smallest_bytes_per_route", v.smallest_bytes_per_route);
    add(w, x, "fastest_build", str_or_null(v.fastest_build));
    add_num(w, x, "fastest_build_ns", (double)v.fastest_build_ns);
    add_str(w, x, "auto", auto_status_names[v.auto_status]);
    if (v.auto_status == RB_VERDICT_AUTO_TIED || v.auto_status == RB_VERDICT_AUTO_BEHIND ||
        v.auto_status == RB_VERDICT_AUTO_LOSES)
        write_lead(w, x, "auto_gap", &v.auto_gap);
    add_str(w, x, "text", v.text);
}

static void write_scenario(jw *w, cJSON *arr, const rb_bundle *b, const rb_bundle_scenario *s)
{
    cJSON *o = push(w, arr, cJSON_CreateObject());
    if (!o) return;
    char f[64];
    add_str(w, o, "name", s->name);
    add_str(w, o, "kind", s->kind);
    add(w, o, "shape", str_or_null(s->shape));
    add(w, o, "seed", *s->shape ? num((double)s->seed) : cJSON_CreateNull());
    add(w, o, "generator", str_or_null(s->generator));
    cJSON *depth = add(w, o, "depth", cJSON_CreateArray());
    int last = RB_BUNDLE_DEPTHS - 1;
    while (last > 0 && !s->depth[last]) last--;
    for (int d = 1; depth && d <= last; d++) push(w, depth, num((double)s->depth[d]));
    add_num(w, o, "routes", (double)s->routes);
    add_num(w, o, "requests", (double)s->requests);
    add_str(w, o, "routes_source", s->routes_source);
    add_str(w, o, "requests_source", s->requests_source);
    add(w, o, "routes_fingerprint", hex64(s->routes_fp));
    add(w, o, "requests_fingerprint", hex64(s->requests_fp));
    rb_features_join(s->features, ",", "static", 0, f, sizeof f);
    add_str(w, o, "features", f);
    add_num(w, o, "parse_ns", (double)s->parse_ns);
    cJSON *skipped = add(w, o, "skipped", cJSON_CreateArray());
    for (const char *p = s->skipped; skipped && *p;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char name[RB_BUNDLE_NAME];
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        push(w, skipped, cJSON_CreateString(name));
        p += n + (e ? 1 : 0);
    }
    cJSON *results = add(w, o, "results", cJSON_CreateArray());
    for (size_t i = 0; results && i < s->nresults; i++) write_result(w, results, b, &s->results[i]);
    cJSON *pairs = add(w, o, "pairs", cJSON_CreateArray());
    for (size_t i = 0; pairs && i < s->npairs; i++) write_pair(w, pairs, &s->pairs[i]);
    write_conditions(w, o, s);
    write_verdict(w, o, b, (size_t)(s - b->scenarios));
}

/* The peers' verdict per language (ecosystem.h): written for readers,
 * recomputed from the results when read. */
static void write_ecosystem(jw *w, cJSON *arr, const rb_bundle *b, const rb_ecosystem *e)
{
    const rb_bundle_scenario *s = &b->scenarios[e->scenario];
    cJSON *o = push(w, arr, cJSON_CreateObject());
    add_str(w, o, "scenario", s->name);
    add_str(w, o, "language", e->language);
    add_str(w, o, "line", e->line);
    add_bool(w, o, "significant", e->significant);
    cJSON *ranking = add(w, o, "ranking", cJSON_CreateArray());
    for (size_t i = 0; ranking && i < e->nranked; i++) {
        const rb_ecosystem_runner *r = &e->ranked[i];
        cJSON *x = push(w, ranking, cJSON_CreateObject());
        add_str(w, x, "router", e->rows[r->row].router);
        add_num(w, x, "median", r->median);
        add_bool(w, x, "top", r->top);
        if (r->has_speed)
            write_lead(w, x, "fastest_speed", &r->speed);
        else if (x)
            add(w, x, "fastest_speed", cJSON_CreateNull());
    }
    cJSON *refusals = add(w, o, "refusals", cJSON_CreateArray());
    cJSON *wrong = add(w, o, "disagreements", cJSON_CreateArray());
    for (size_t i = 0; i < e->nrows; i++) {
        const rb_compat_row *r = &e->rows[i];
        if (r->state != RB_COMPAT_ACCEPTED && refusals) {
            cJSON *x = push(w, refusals, cJSON_CreateObject());
            add_str(w, x, "router", r->router);
            add_num(w, x, "routes", (double)r->refused_routes);
            add_str(w, x, "reason", r->reason);
        } else if ((r->wrong || r->wrong_linear) && wrong) {
            const rb_bundle_result *res = &s->results[r->result];
            cJSON *x = push(w, wrong, cJSON_CreateObject());
            add_str(w, x, "router", r->router);
            add_num(w, x, "expected", (double)r->wrong);
            add_num(w, x, "linear", (double)r->wrong_linear);
            add_num(w, x, "requests", (double)s->requests);
            cJSON *first = add(w, x, "first", cJSON_CreateArray());
            for (size_t k = 0; first && k < res->ndiffers; k++)
                write_fields(w, push(w, first, cJSON_CreateObject()), differ_fields,
                             JF_N(differ_fields), &res->differs[k]);
        }
    }
}

static void write_ecosystems(jw *w, cJSON *verdict, const rb_bundle *b)
{
    cJSON *arr = add(w, verdict, "ecosystems", cJSON_CreateArray());
    for (size_t si = 0; arr && si < b->nscenarios; si++) {
        rb_ecosystem e[RB_ECOSYSTEM_LANGS];
        size_t n = rb_ecosystems(b, si, e, RB_ECOSYSTEM_LANGS);
        for (size_t k = 0; k < n; k++) write_ecosystem(w, arr, b, &e[k]);
    }
}

static void write_gate(jw *w, cJSON *root, const rb_bundle *b)
{
    const rb_bundle_gate *g = &b->gate;
    if (!g->on) {
        if (root) add(w, root, "gate", cJSON_CreateNull());
        return;
    }
    cJSON *o = add(w, root, "gate", cJSON_CreateObject());
    add_str(w, o, "metric", rb_metric_name(b->metric));
    if (o)
        add(w, o, "clock",
            b->metric == RB_METRIC_TIME ? cJSON_CreateString(b->cpu_clock ? "cpu" : "wall")
                                        : cJSON_CreateNull());
    add_str(w, o, "a", g->a);
    add_str(w, o, "b", g->b);
    add_num(w, o, "threshold", g->threshold);
    add_str(w, o, "outcome", rb_gate_outcome_name(g->outcome));
    add_str(w, o, "decided_on", g->decided_on);
    add_bool(w, o, "exact", g->evidence.exact);
    add_num(w, o, "pairs", (double)g->evidence.pairs);
    add_bool(w, o, "too_few", g->evidence.too_few);
    add_num(w, o, "median", g->evidence.median);
    add_num(w, o, "lo", g->evidence.lo);
    add_num(w, o, "hi", g->evidence.hi);
    add_num(w, o, "coverage", g->evidence.coverage);
    add_num(w, o, "mde", g->evidence.mde);
    add_num(w, o, "trials_needed", (double)g->trials_needed);
    add_str(w, o, "message", g->message);
}

static void write_strings(jw *w, cJSON *root, const char *key, char *const *v, size_t n)
{
    cJSON *arr = add(w, root, key, cJSON_CreateArray());
    for (size_t i = 0; arr && i < n; i++) push(w, arr, cJSON_CreateString(v[i]));
}

static void write_all(jw *w, cJSON *root, const rb_bundle *b)
{
    add_str(w, root, "schema", RB_BUNDLE_SCHEMA);
    add_num(w, root, "schema_version", RB_BUNDLE_SCHEMA_VERSION);

    cJSON *tool = add(w, root, "tool", cJSON_CreateObject());
    add_str(w, tool, "name", "routebench");
    write_fields(w, tool, tool_fields, JF_N(tool_fields), b);
    write_fields(w, add(w, root, "machine", cJSON_CreateObject()), machine_fields,
                 JF_N(machine_fields), b);

    add_str(w, root, "date", b->date);
    if (root)
        add(w, root, "duration_s", b->duration_s >= 0 ? num(b->duration_s) : cJSON_CreateNull());
    add_str(w, root, "command", b->command);

    write_fields(w, add(w, root, "seeds", cJSON_CreateObject()), seeds_fields, JF_N(seeds_fields),
                 b);

    cJSON *p = add(w, root, "protocol", cJSON_CreateObject());
    write_fields(w, p, protocol_fields, JF_N(protocol_fields), b);
    add_str(w, p, "metric", rb_metric_name(b->metric));
    add_str(w, p, "unit", rb_metric_unit(b->metric));
    add_str(w, p, "order",
            rb_metric_exact(b->metric)
                ? "counted: one router at a time, in the order of results"
                : "balanced, shuffled: round t runs the routers in order t mod 2R of the R "
                  "forward and R backward rotations, the rounds shuffled from seeds.order "
                  "(scenario i: seeds.order + i)");
    add_str(w, p, "interval",
            rb_metric_exact(b->metric)
                ? "none: counts are exact, ratios exact"
                : "pairs: sign-test interval of the median; geometric means: percentile "
                  "bootstrap (one scenario: its sign-test interval)");
    add_str(w, p, "clock_id",
            rb_metric_exact(b->metric)               ? "callgrind"
            : b->metric == RB_METRIC_HW_INSTRUCTIONS ? "perf_instructions"
            : b->cpu_clock                           ? "thread_cputime"
                                                     : "monotonic");
    add_str(
        w, p, "clock",
        rb_metric_exact(b->metric)
            ? "Callgrind client requests around each router's replays (bench/measure/callgrind.h)"
        : b->metric == RB_METRIC_HW_INSTRUCTIONS
            ? "perf_event_open(PERF_COUNT_HW_INSTRUCTIONS) around each trial"
        : b->cpu_clock ? "clock_gettime(CLOCK_THREAD_CPUTIME_ID) around each trial: the CPU "
                         "time of the benchmark thread"
                       : "clock_gettime(CLOCK_MONOTONIC) around each trial: elapsed time");
    write_fields(w, p, protocol_tail_fields, JF_N(protocol_tail_fields), b);
    add_str(w, p, "ratio",
            "speed ratio b/a: median over rounds of (ns per lookup of a) / (ns per lookup "
            "of b); above 1: b is faster");

    add_str(w, root, "baseline", b->baseline);

    cJSON *routers = add(w, root, "routers", cJSON_CreateArray());
    for (size_t i = 0; routers && i < b->nrouters; i++) {
        cJSON *o = push(w, routers, cJSON_CreateObject());
        char f[64];
        rb_features_join(b->routers[i].features, ",", "static", 0, f, sizeof f);
        add_str(w, o, "name", b->routers[i].name);
        add_str(w, o, "summary", b->routers[i].summary);
        add_str(w, o, "features", f);
        add_bool(w, o, "reference", b->routers[i].reference);
        add_bool(w, o, "peer", b->routers[i].peer);
    }
    cJSON *scenarios = add(w, root, "scenarios", cJSON_CreateArray());
    for (size_t i = 0; scenarios && i < b->nscenarios; i++)
        write_scenario(w, scenarios, b, &b->scenarios[i]);
    cJSON *gms = add(w, root, "geomeans", cJSON_CreateArray());
    for (size_t i = 0; gms && i < b->ngeomeans; i++) {
        const rb_bundle_geomean *g = &b->geomeans[i];
        write_fields(w, push(w, gms, cJSON_CreateObject()), geomean_fields, JF_N(geomean_fields),
                     g);
    }
    write_gate(w, root, b);
    char overall[RB_VERDICT_TEXT];
    rb_verdict_overall(b, overall, sizeof overall);
    cJSON *verdict = add(w, root, "verdict", cJSON_CreateObject());
    add_str(w, verdict, "text", overall);
    write_ecosystems(w, verdict, b);
    cJSON *libs = add(w, root, "libraries", cJSON_CreateArray());
    for (size_t i = 0; libs && i < b->nlibraries; i++) {
        const rb_bundle_library *l = &b->libraries[i];
        write_fields(w, push(w, libs, cJSON_CreateObject()), library_fields, JF_N(library_fields),
                     l);
    }
    write_strings(w, root, "warnings", b->warnings, b->nwarnings);
    write_strings(w, root, "limitations", b->limitations, b->nlimitations);
}

int rb_bundle_json_write(const rb_bundle *b, rb_buf *out, rb_error *err)
{
    jw w = {false};
    cJSON *root = cJSON_CreateObject();
    if (!root) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory writing JSON");
    write_all(&w, root, b);
    char *text = w.failed ? NULL : cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory writing JSON");
    rb_buf_puts(out, text);
    rb_buf_puts(out, "\n");
    cJSON_free(text);
    return out->failed ? rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory") : RB_OK;
}

/* ---- reading -------------------------------------------------------------- */

typedef struct jr {
    rb_error *err;
    int rc;
    const char *where; /* the object being read, for messages */
} jr;

static const cJSON *field(jr *r, const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v && r->rc == RB_OK)
        r->rc = rb__error(r->err, RB_EFORMAT, RB_NO_OFFSET, "summary.json: %s has no \"%s\"",
                          r->where, key);
    return v;
}

/* The range of a value per lookup (ns, instructions or cycles) that a
 * reader accepts: what a lookup can cost (docs/cli.md, "Input caps"). */
#define VALUE_MIN 1e-3
#define VALUE_MAX 1e12

static double get_num(jr *r, const cJSON *o, const char *key)
{
    const cJSON *v = field(r, o, key);
    /* a number too large for a double (1e400) parses as infinity */
    if (v && cJSON_IsNumber(v) && !isfinite(v->valuedouble) && r->rc == RB_OK)
        r->rc = rb__error(r->err, RB_EFORMAT, RB_NO_OFFSET,
                          "summary.json: %s: \"%s\" is not a finite number", r->where, key);
    if (v && cJSON_IsNumber(v)) return isfinite(v->valuedouble) ? v->valuedouble : 0;
    if (v && r->rc == RB_OK)
        r->rc = rb__error(r->err, RB_EFORMAT, RB_NO_OFFSET,
                          "summary.json: %s: \"%s\" is not a number", r->where, key);
    return 0;
}

static double get_num_or(jr *r, const cJSON *o, const char *key, double absent)
{
    const cJSON *v = field(r, o, key);
    if (v && cJSON_IsNull(v)) return absent;
    return get_num(r, o, key);
}

/* A number from lo to hi (what the field can mean), else the error names
 * the field and the range. */
static double get_in(jr *r, const cJSON *o, const char *key, double lo, double hi)
{
    double v = get_num(r, o, key);
    if (r->rc == RB_OK && !(v >= lo && v <= hi))
        r->rc =
            rb__error(r->err, RB_EFORMAT, RB_NO_OFFSET,
                      "summary.json: %s: \"%s\" is %g, outside %g to %g", r->where, key, v, lo, hi);
    return v;
}

/* A number >= 0, or null (read: absent). */
static double get_nonneg_or(jr *r, const cJSON *o, const char *key, double absent)
{
    const cJSON *v = field(r, o, key);
    if (v && cJSON_IsNull(v)) return absent;
    double d = get_num(r, o, key);
    if (r->rc == RB_OK && d < 0)
        r->rc = rb__error(r->err, RB_EFORMAT, RB_NO_OFFSET,
                          "summary.json: %s: \"%s\" is %g: negative (null when unknown)", r->where,
                          key, d);
    return d;
}

static uint64_t get_u64(jr *r, const cJSON *o, const char *key)
{
    double v = get_num(r, o, key);
    if (!(v >= 0 && v <= 9007199254740992.0) && r->rc == RB_OK)
        r->rc = rb__error(r->err, RB_EFORMAT, RB_NO_OFFSET,
                          "summary.json: %s: \"%s\" is not a count", r->where, key);
    return r->rc == RB_OK ? (uint64_t)v : 0;
}

static void get_str(jr *r, const cJSON *o, const char *key, char *buf, size_t cap)
{
    const cJSON *v = field(r, o, key);
    buf[0] = '\0';
    if (v && cJSON_IsString(v)) {
        snprintf(buf, cap, "%s", v->valuestring);
    } else if (v && !cJSON_IsNull(v) && r->rc == RB_OK) {
        r->rc = rb__error(r->err, RB_EFORMAT, RB_NO_OFFSET,
                          "summary.json: %s: \"%s\" is not a string", r->where, key);
    }
}

static bool get_bool(jr *r, const cJSON *o, const char *key)
{
    const cJSON *v = field(r, o, key);
    if (v && !cJSON_IsBool(v) && r->rc == RB_OK)
        r->rc = rb__error(r->err, RB_EFORMAT, RB_NO_OFFSET,
                          "summary.json: %s: \"%s\" is not true or false", r->where, key);
    return v && cJSON_IsTrue(v);
}

static uint64_t get_hex(jr *r, const cJSON *o, const char *key)
{
    char text[32];
    get_str(r, o, key, text, sizeof text);
    char *end;
    uint64_t v = strtoull(text, &end, 16);
    if ((strlen(text) != 16 || *end) && r->rc == RB_OK)
        r->rc = rb__error(r->err, RB_EFORMAT, RB_NO_OFFSET,
                          "summary.json: %s: \"%s\" is not 16 hex digits", r->where, key);
    return v;
}

/* A field added within version 1: absent in older files, so optional. */
static bool has(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key) != NULL;
}

static const cJSON *get_array(jr *r, const cJSON *o, const char *key)
{
    const cJSON *v = field(r, o, key);
    if (v && !cJSON_IsArray(v) && r->rc == RB_OK)
        r->rc = rb__error(r->err, RB_EFORMAT, RB_NO_OFFSET,
                          "summary.json: %s: \"%s\" is not an array", r->where, key);
    return r->rc == RB_OK ? v : NULL;
}

static void nomem(jr *r)
{
    if (r->rc == RB_OK)
        r->rc = rb__error(r->err, RB_ENOMEM, RB_NO_OFFSET, "out of memory reading JSON");
}

/* Read the rows of fields from o into the struct at base. */
static void read_fields(jr *r, const cJSON *o, const json_field *fields, size_t n, void *base)
{
    for (size_t i = 0; i < n && r->rc == RB_OK; i++) {
        const json_field *f = &fields[i];
        char *p = (char *)base + f->offset;
        double d;
        switch (f->type) {
        case J_STR:
        case J_STR_OR_NULL:
            get_str(r, o, f->key, p, f->size);
            break;
        case J_STR_ADDED:
            if (has(o, f->key))
                get_str(r, o, f->key, p, f->size);
            else
                p[0] = '\0';
            break;
        case J_DOUBLE:
            d = get_num(r, o, f->key);
            memcpy(p, &d, sizeof d);
            break;
        case J_DOUBLE_OR_NULL:
            d = get_nonneg_or(r, o, f->key, -1);
            memcpy(p, &d, sizeof d);
            break;
        case J_DOUBLE_INF_NULL:
            d = get_num_or(r, o, f->key, INFINITY);
            memcpy(p, &d, sizeof d);
            break;
        case J_INT_OR_NULL: {
            double x = get_nonneg_or(r, o, f->key, -1);
            int v = x <= INT_MAX ? (int)x : -1;
            memcpy(p, &v, sizeof v);
            break;
        }
        case J_COUNT:
            store_count(p, f->size, get_u64(r, o, f->key));
            break;
        case J_BOOL:
            store_bool(p, f->size, get_bool(r, o, f->key));
            break;
        case J_HEX64:
            store_count(p, f->size, get_hex(r, o, f->key));
            break;
        }
    }
}

/* The first requests a router answered otherwise; absent: none. */
static void read_differs(jr *r, const cJSON *o, rb_bundle_result *x)
{
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(o, "differs");
    const cJSON *e;
    cJSON_ArrayForEach(e, d)
    {
        if (x->ndiffers == RB_BUNDLE_MAX_DIFFERS || r->rc != RB_OK) break;
        read_fields(r, e, differ_fields, JF_N(differ_fields), &x->differs[x->ndiffers++]);
    }
}

static void read_result(jr *r, const cJSON *o, const rb_bundle *b, rb_bundle_scenario *s)
{
    char name[RB_BUNDLE_NAME];
    get_str(r, o, "router", name, sizeof name);
    rb_bundle_result *x = r->rc == RB_OK ? rb_bundle_add_result(s, name) : NULL;
    if (!x) {
        nomem(r);
        return;
    }
    char key[64];
    x->trials = (size_t)get_u64(r, o, "trials");
    /* the value per lookup is a cost: positive when measured, 0 without trials */
    char where[sizeof s->name + sizeof x->router + 4];
    snprintf(where, sizeof where, "%s, %s", s->name, x->router);
    r->where = where;
    double lo = x->trials ? VALUE_MIN : 0;
    x->median_ns = get_in(r, o, value_key(b, "median", key, sizeof key), lo, VALUE_MAX);
    x->min_ns = get_in(r, o, value_key(b, "min", key, sizeof key), 0, VALUE_MAX);
    x->max_ns = get_in(r, o, value_key(b, "max", key, sizeof key), 0, VALUE_MAX);
    x->mad_ns = get_in(r, o, value_key(b, "mad", key, sizeof key), 0, VALUE_MAX);
    x->lookups_per_s = get_num_or(r, o, "lookups_per_s", 0);
    if (rb_metric_exact(b->metric))
        x->ir_per_lookup = get_in(r, o, "instructions_per_lookup", 0, VALUE_MAX);
    r->where = s->name;
    if (b->metric == RB_METRIC_CYCLES_EST) {
        x->data_refs_per_lookup = get_num(r, o, "data_refs_per_lookup");
        x->l1_misses_per_lookup = get_num(r, o, "l1_misses_per_lookup");
        x->ll_misses_per_lookup = get_num(r, o, "ll_misses_per_lookup");
    }
    x->memory_bytes = get_u64(r, o, "memory_bytes");
    x->bytes_per_route = get_num(r, o, "bytes_per_route");
    x->build_ns = get_u64(r, o, "build_ns");
    x->replays_per_trial = get_u64(r, o, "replays_per_trial");
    x->lookups_per_trial = get_u64(r, o, "lookups_per_trial");
    x->checksum = get_hex(r, o, "checksum");
    x->disagreements = get_u64(r, o, "disagreements");
    x->disturbed_trials = get_u64(r, o, "disturbed_trials");
    x->short_trials = get_u64(r, o, "short_trials");
    x->recalibrated = get_bool(r, o, "recalibrated");
    /* absent in older bundles */
    x->rss_growth_bytes =
        has(o, "rss_growth_bytes") ? (int64_t)get_num_or(r, o, "rss_growth_bytes", -1) : -1;
    x->peer_process = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "peer_process"));
    x->disagree_linear = has(o, "disagree_linear") ? (uint64_t)get_num(r, o, "disagree_linear") : 0;
    read_differs(r, o, x);
    x->count_spread = has(o, "count_spread") ? get_num(r, o, "count_spread") : 0;
}

/* The value among name(0) .. name(n - 1) that key names, 0 when absent or
 * null; any other string is an error naming the field. */
static int get_name(jr *r, const cJSON *o, const char *key, const char *(*name)(int), int n)
{
    char text[32] = "";
    if (has(o, key)) get_str(r, o, key, text, sizeof text);
    if (!*text) return 0;
    for (int i = 0; i < n; i++)
        if (strcmp(name(i), text) == 0) return i;
    if (r->rc == RB_OK)
        r->rc = rb__error(r->err, RB_EFORMAT, RB_NO_OFFSET,
                          "summary.json: %s: \"%s\" is \"%s\", not one of its names", r->where, key,
                          text);
    return 0;
}

static const char *mode_name(int i)
{
    return rb_bundle_mode_name((rb_bundle_mode)i);
}

static const char *cache_name(int i)
{
    return rb_bundle_cache_name((rb_bundle_cache)i);
}

static void read_pair(jr *r, const cJSON *o, rb_bundle_pair *p)
{
    read_fields(r, o, pair_fields, JF_N(pair_fields), p);
}

/* The conditions, refusals and auto's pick; absent in older bundles (throughput, warm, none
 * refused, auto's choice unknown).  The verdict is not read: it is
 * recomputed from the results. */
static void read_conditions(jr *r, const cJSON *o, rb_bundle_scenario *s)
{
    s->mode = (rb_bundle_mode)get_name(r, o, "mode", mode_name, RB_BUNDLE_MODES);
    s->cache = (rb_bundle_cache)get_name(r, o, "cache", cache_name, RB_BUNDLE_CACHES);
    if (has(o, "app_bytes")) s->app_bytes = (uint64_t)get_num_or(r, o, "app_bytes", 0);
    if (has(o, "app_ns_per_lookup")) s->app_ns = get_num_or(r, o, "app_ns_per_lookup", 0);
    if (has(o, "app_mad_ns")) s->app_mad_ns = get_num_or(r, o, "app_mad_ns", 0);
    const cJSON *refused = cJSON_GetObjectItemCaseSensitive(o, "refused"), *v;
    cJSON_ArrayForEach(v, refused)
    {
        if (s->nrefused == RB_BUNDLE_MAX_REFUSED) break;
        rb_bundle_refusal *x = &s->refused[s->nrefused++];
        get_str(r, v, "router", x->router, sizeof x->router);
        get_str(r, v, "reason", x->reason, sizeof x->reason);
    }
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "auto");
    if (a && cJSON_IsObject(a)) {
        get_str(r, a, "choice", s->auto_choice, sizeof s->auto_choice);
        get_str(r, a, "why", s->auto_why, sizeof s->auto_why);
    }
}

static void read_scenario(jr *r, const cJSON *o, rb_bundle *b)
{
    rb_bundle_scenario *s = rb_bundle_add_scenario(b);
    if (!s) {
        nomem(r);
        return;
    }
    get_str(r, o, "name", s->name, sizeof s->name);
    r->where = s->name;
    char f[64];
    get_str(r, o, "kind", s->kind, sizeof s->kind);
    get_str(r, o, "shape", s->shape, sizeof s->shape);
    s->seed = (uint64_t)get_num_or(r, o, "seed", 0);
    /* added later: absent means generator v1 and depths not recorded */
    if (cJSON_GetObjectItemCaseSensitive(o, "generator"))
        get_str(r, o, "generator", s->generator, sizeof s->generator);
    else if (strcmp(s->kind, "generated") == 0)
        snprintf(s->generator, sizeof s->generator, "v1");
    const cJSON *depth = cJSON_GetObjectItemCaseSensitive(o, "depth"), *dv;
    int d = 1;
    cJSON_ArrayForEach(dv, depth)
    {
        if (d < RB_BUNDLE_DEPTHS && cJSON_IsNumber(dv) && dv->valuedouble >= 0)
            s->depth[d++] = (size_t)dv->valuedouble;
    }
    s->routes = (size_t)get_u64(r, o, "routes");
    s->requests = (size_t)get_u64(r, o, "requests");
    get_str(r, o, "routes_source", s->routes_source, sizeof s->routes_source);
    get_str(r, o, "requests_source", s->requests_source, sizeof s->requests_source);
    s->routes_fp = get_hex(r, o, "routes_fingerprint");
    s->requests_fp = get_hex(r, o, "requests_fingerprint");
    get_str(r, o, "features", f, sizeof f);
    s->features = rb_features_parse(f);
    /* absent from bundles written before the routes were parsed once */
    if (cJSON_GetObjectItemCaseSensitive(o, "parse_ns")) s->parse_ns = get_u64(r, o, "parse_ns");
    const cJSON *skipped = get_array(r, o, "skipped"), *v;
    size_t n = 0;
    cJSON_ArrayForEach(v, skipped)
    {
        if (!cJSON_IsString(v)) continue;
        int w =
            snprintf(s->skipped + n, sizeof s->skipped - n, "%s%s", n ? "," : "", v->valuestring);
        if (w > 0) n += (size_t)w;
        if (n >= sizeof s->skipped) n = sizeof s->skipped - 1;
    }
    const cJSON *results = get_array(r, o, "results");
    cJSON_ArrayForEach(v, results)
    {
        if (r->rc == RB_OK) read_result(r, v, b, s);
    }
    const cJSON *pairs = get_array(r, o, "pairs");
    int np = pairs ? cJSON_GetArraySize(pairs) : 0;
    if (np > 0 && r->rc == RB_OK) {
        s->pairs = calloc((size_t)np, sizeof *s->pairs);
        if (!s->pairs) nomem(r);
    }
    cJSON_ArrayForEach(v, pairs)
    {
        if (r->rc == RB_OK) read_pair(r, v, &s->pairs[s->npairs++]);
    }
    read_conditions(r, o, s);
}

static void read_gate(jr *r, const cJSON *o, rb_bundle *b)
{
    rb_bundle_gate *g = &b->gate;
    memset(g, 0, sizeof *g);
    if (!o || cJSON_IsNull(o)) return;
    r->where = "gate";
    g->on = true;
    get_str(r, o, "a", g->a, sizeof g->a);
    get_str(r, o, "b", g->b, sizeof g->b);
    g->threshold = get_in(r, o, "threshold", 0.5, 1);
    char outcome[32];
    get_str(r, o, "outcome", outcome, sizeof outcome);
    g->outcome = rb_gate_outcome_parse(outcome);
    if (g->outcome < 0 && r->rc == RB_OK)
        r->rc = rb__error(r->err, RB_EFORMAT, RB_NO_OFFSET,
                          "summary.json: gate: unknown outcome \"%s\"", outcome);
    get_str(r, o, "decided_on", g->decided_on, sizeof g->decided_on);
    g->evidence.exact = get_bool(r, o, "exact");
    g->evidence.pairs = (size_t)get_u64(r, o, "pairs");
    g->evidence.too_few = get_bool(r, o, "too_few");
    g->evidence.median = get_num(r, o, "median");
    g->evidence.lo = get_num(r, o, "lo");
    g->evidence.hi = get_num(r, o, "hi");
    g->evidence.coverage = get_num(r, o, "coverage");
    g->evidence.mde = get_num_or(r, o, "mde", INFINITY);
    g->trials_needed = (size_t)get_u64(r, o, "trials_needed");
    get_str(r, o, "message", g->message, sizeof g->message);
}

static void read_strings(jr *r, const cJSON *root, const char *key, rb_bundle *b, bool warnings)
{
    const cJSON *arr = get_array(r, root, key), *v;
    cJSON_ArrayForEach(v, arr)
    {
        if (r->rc != RB_OK || !cJSON_IsString(v)) continue;
        int rc = warnings ? rb_bundle_add_warning(b, v->valuestring)
                          : rb_bundle_add_limitation(b, v->valuestring);
        if (rc < 0) nomem(r);
    }
}

static void read_routers(jr *r, const cJSON *root, rb_bundle *b)
{
    const cJSON *routers = get_array(r, root, "routers"), *v;
    cJSON_ArrayForEach(v, routers)
    {
        if (r->rc != RB_OK) break;
        r->where = "routers[]";
        char name[RB_BUNDLE_NAME], summary[RB_BUNDLE_TEXT], f[64];
        get_str(r, v, "name", name, sizeof name);
        get_str(r, v, "summary", summary, sizeof summary);
        get_str(r, v, "features", f, sizeof f);
        bool reference = get_bool(r, v, "reference");
        bool peer = has(v, "peer") && get_bool(r, v, "peer");
        if (r->rc == RB_OK && rb_bundle_add_router(b, name, summary, rb_features_parse(f)) < 0)
            nomem(r);
        if (r->rc == RB_OK) {
            b->routers[b->nrouters - 1].reference = reference;
            b->routers[b->nrouters - 1].peer = peer;
        }
    }
}

static void read_geomeans(jr *r, const cJSON *root, rb_bundle *b)
{
    const cJSON *v;
    const cJSON *gms = get_array(r, root, "geomeans");
    int ng = gms ? cJSON_GetArraySize(gms) : 0;
    if (ng > 0 && r->rc == RB_OK) {
        b->geomeans = calloc((size_t)ng, sizeof *b->geomeans);
        if (!b->geomeans) nomem(r);
    }
    cJSON_ArrayForEach(v, gms)
    {
        if (r->rc != RB_OK) break;
        r->where = "geomeans[]";
        rb_bundle_geomean *g = &b->geomeans[b->ngeomeans++];
        read_fields(r, v, geomean_fields, JF_N(geomean_fields), g);
        g->g.level = b->bootstrap.level;
    }
}

static void read_libraries(jr *r, const cJSON *root, rb_bundle *b)
{
    const cJSON *v;
    const cJSON *libs = get_array(r, root, "libraries");
    cJSON_ArrayForEach(v, libs)
    {
        if (r->rc != RB_OK) break;
        r->where = "libraries[]";
        rb_bundle_library l;
        memset(&l, 0, sizeof l);
        read_fields(r, v, library_fields, JF_N(library_fields), &l);
        if (r->rc == RB_OK && rb_bundle_add_library(b, &l) < 0) nomem(r);
    }
}

static void read_all(jr *r, const cJSON *root, rb_bundle *b)
{
    r->where = "the top level";
    char schema[64];
    get_str(r, root, "schema", schema, sizeof schema);
    double version = get_num(r, root, "schema_version");
    if (r->rc == RB_OK &&
        (strcmp(schema, RB_BUNDLE_SCHEMA) != 0 || version != RB_BUNDLE_SCHEMA_VERSION)) {
        r->rc = rb__error(r->err, RB_EFORMAT, RB_NO_OFFSET,
                          "summary.json: schema %s version %g; this routebench reads %s "
                          "version %d",
                          schema, version, RB_BUNDLE_SCHEMA, RB_BUNDLE_SCHEMA_VERSION);
        return;
    }
    const cJSON *tool = field(r, root, "tool");
    r->where = "tool";
    read_fields(r, tool, tool_fields, JF_N(tool_fields), b);

    const cJSON *m = field(r, root, "machine");
    r->where = "machine";
    read_fields(r, m, machine_fields, JF_N(machine_fields), b);
    const cJSON *dur = cJSON_GetObjectItemCaseSensitive(root, "duration_s"); /* optional */
    r->where = "the top level";
    b->duration_s = cJSON_IsNumber(dur) ? get_in(r, root, "duration_s", 0, 1e9) : -1;

    r->where = "the top level";
    get_str(r, root, "date", b->date, sizeof b->date);
    get_str(r, root, "command", b->command, sizeof b->command);
    const cJSON *seeds = field(r, root, "seeds");
    r->where = "seeds";
    read_fields(r, seeds, seeds_fields, JF_N(seeds_fields), b);

    const cJSON *p = field(r, root, "protocol");
    r->where = "protocol";
    read_fields(r, p, protocol_fields, JF_N(protocol_fields), b);
    char metric[32];
    get_str(r, p, "metric", metric, sizeof metric);
    b->metric = rb_metric_parse(metric);
    if (b->metric < 0 && r->rc == RB_OK)
        r->rc = rb__error(r->err, RB_EFORMAT, RB_NO_OFFSET,
                          "summary.json: protocol: unknown metric \"%s\"", metric);
    char clock_id[32] = "monotonic";
    get_str(r, p, "clock_id", clock_id, sizeof clock_id);
    b->cpu_clock = strcmp(clock_id, "thread_cputime") == 0;
    read_fields(r, p, protocol_tail_fields, JF_N(protocol_tail_fields), b);

    r->where = "the top level";
    get_str(r, root, "baseline", b->baseline, sizeof b->baseline);
    read_routers(r, root, b);
    r->where = "the top level";
    const cJSON *scenarios = get_array(r, root, "scenarios"), *v;
    cJSON_ArrayForEach(v, scenarios)
    {
        if (r->rc == RB_OK) read_scenario(r, v, b);
    }
    r->where = "the top level";
    read_geomeans(r, root, b);
    r->where = "the top level";
    read_gate(r, field(r, root, "gate"), b);
    r->where = "the top level";
    read_libraries(r, root, b);
    r->where = "the top level";
    read_strings(r, root, "warnings", b, true);
    read_strings(r, root, "limitations", b, false);
    for (size_t i = 0; i < b->nscenarios; i++)
        for (size_t k = 0; k < b->scenarios[i].npairs; k++)
            b->scenarios[i].pairs[k].r.level = b->bootstrap.level;
}

int rb_bundle_json_read(const char *text, size_t len, rb_bundle *b, rb_error *err)
{
    rb_bundle_init(b);
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        size_t off = at && at >= text && at <= text + len ? (size_t)(at - text) : RB_NO_OFFSET;
        return rb__error(err, RB_EFORMAT, off, "summary.json is not valid JSON (near byte %zu)",
                         off);
    }
    jr r = {err, RB_OK, ""};
    if (!cJSON_IsObject(root))
        r.rc = rb__error(err, RB_EFORMAT, RB_NO_OFFSET, "summary.json is not a JSON object");
    else
        read_all(&r, root, b);
    cJSON_Delete(root);
    if (r.rc < 0) rb_bundle_free(b);
    return r.rc;
}
