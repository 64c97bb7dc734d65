/*
 * check_report.c — the verdict of a corpus check and its report as JSON
 * (`routebench corpus check --json`; the fields are listed in check.h).
 */
#include "check.h"

#include "base_internal.h"
#include "json_out.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

bool rb_check_clean(const rb_check_report *r, size_t min_unique)
{
    return r->routes > 0 && r->shape_duplicates == 0 && r->shadowed == 0 &&
           r->possibly_shadowed == 0 && r->distinct_routes >= min_unique;
}

void rb_check_verdict(const rb_check_report *r, size_t min_unique, char *buf, size_t cap)
{
    if (r->routes == 0) {
        snprintf(buf, cap, "no routes: an empty table is not clean (it proves nothing)");
        return;
    }
    int w;
    if (rb_check_clean(r, min_unique)) {
        w = snprintf(buf, cap, "clean for %zu routes", r->distinct_routes);
    } else {
        w = snprintf(buf, cap, "problems found:");
        const char *sep = " ";
        size_t n[4] = {r->shape_duplicates, r->shadowed, r->possibly_shadowed,
                       r->distinct_routes < min_unique ? r->distinct_routes : 0};
        static const char *const what[4] = {"shape duplicates", "shadowed", "possibly shadowed",
                                            "distinct routes, fewer than --min-unique"};
        for (int i = 0; i < 4; i++) {
            if (!n[i] || w < 0 || (size_t)w >= cap) continue;
            w += snprintf(buf + w, cap - (size_t)w, "%s%zu %s", sep, n[i], what[i]);
            if (i == 2 && r->over_budget && (size_t)w < cap)
                w += snprintf(buf + w, cap - (size_t)w, " (%zu left undecided by the work budget)",
                              r->over_budget);
            sep = ", ";
        }
    }
    if (r->sampled && w >= 0 && (size_t)w < cap)
        snprintf(buf + w, cap - (size_t)w, "; %zu routes checked by sampling", r->sampled);
}

static size_t line_of(const rb_route_table *t, uint32_t r)
{
    return t->routes[r].line ? t->routes[r].line : (size_t)r + 1;
}

static cJSON *json_pairs(const rb_route_table *t, const rb_check_pair *p, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "line", (double)line_of(t, p[i].route));
        cJSON_AddNumberToObject(o, "earlier_line", (double)line_of(t, p[i].earlier));
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

int rb_check_report_json(const char *path, const rb_route_table *t, const rb_check_report *r,
                         size_t min_unique, rb_buf *out, rb_error *err)
{
    bool ok = rb_check_clean(r, min_unique);
    cJSON *o = cJSON_CreateObject();
    char fp[32];
    snprintf(fp, sizeof fp, "xxh3:%016llx", (unsigned long long)r->fingerprint);
    cJSON_AddStringToObject(o, "file", path);
    cJSON_AddNumberToObject(o, "routes", (double)r->routes);
    cJSON_AddNumberToObject(o, "exact_duplicates", (double)r->exact_duplicates);
    cJSON_AddItemToObject(o, "exact", json_pairs(t, r->exact, r->exact_duplicates));
    cJSON_AddNumberToObject(o, "shape_duplicates", (double)r->shape_duplicates);
    cJSON_AddItemToObject(o, "shape", json_pairs(t, r->shape, r->shape_duplicates));
    cJSON_AddNumberToObject(o, "shadowed", (double)r->shadowed);
    cJSON_AddNumberToObject(o, "possibly_shadowed", (double)r->possibly_shadowed);
    cJSON *sh = cJSON_AddArrayToObject(o, "shadows");
    for (size_t i = 0; sh && i < r->shadowed + r->possibly_shadowed; i++) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddNumberToObject(x, "line", (double)line_of(t, r->shadows[i].route));
        if (r->shadows[i].by != RB_ST_NONE)
            cJSON_AddNumberToObject(x, "by_line", (double)line_of(t, r->shadows[i].by));
        cJSON_AddBoolToObject(x, "possible", r->shadows[i].possible);
        cJSON_AddItemToArray(sh, x);
    }
    cJSON_AddNumberToObject(o, "sampled", (double)r->sampled);
    cJSON_AddNumberToObject(o, "over_budget", (double)r->over_budget);
    cJSON_AddNumberToObject(o, "work", (double)r->work);
    cJSON_AddNumberToObject(o, "budget", (double)r->budget);
    cJSON_AddNumberToObject(o, "distinct_routes", (double)r->distinct_routes);
    cJSON_AddNumberToObject(o, "distinct_shapes", (double)r->distinct_shapes);
    cJSON_AddNumberToObject(o, "distinct_skeletons", (double)r->distinct_skeletons);
    cJSON_AddNumberToObject(o, "min_depth", (double)r->min_depth);
    cJSON_AddNumberToObject(o, "max_depth", (double)r->max_depth);
    cJSON *dh = cJSON_AddObjectToObject(o, "depth");
    for (int d = 1; dh && d < RB_CHECK_DEPTHS; d++) {
        char k[8];
        snprintf(k, sizeof k, "%d%s", d, d == RB_CHECK_DEPTHS - 1 ? "+" : "");
        if (r->depth[d]) cJSON_AddNumberToObject(dh, k, (double)r->depth[d]);
    }
    cJSON *fh = cJSON_AddObjectToObject(o, "fanout");
    for (int b = 0; fh && b < RB_CHECK_FANOUT_BUCKETS; b++)
        if (r->fanout[b])
            cJSON_AddNumberToObject(fh, rb_check_fanout_bucket(b), (double)r->fanout[b]);
    cJSON_AddNumberToObject(o, "max_fanout", (double)r->max_fanout);
    cJSON_AddStringToObject(o, "max_fanout_prefix", r->max_fanout_prefix);
    cJSON_AddNumberToObject(o, "max_behind_one_prefix", (double)r->max_behind);
    cJSON_AddStringToObject(o, "max_behind_prefix", r->max_behind_prefix);
    cJSON_AddStringToObject(o, "fingerprint", fp);
    if (min_unique) cJSON_AddNumberToObject(o, "min_unique", (double)min_unique);
    cJSON_AddBoolToObject(o, "ok", ok);
    char verdict[256];
    rb_check_verdict(r, min_unique, verdict, sizeof verdict);
    cJSON_AddStringToObject(o, "verdict", verdict);
    cJSON_AddBoolToObject(o, "empty", r->routes == 0);
    return rb__json_out(o, out, NULL, err);
}
