/*
 * profile_report.c — two profiles side by side, as text and as JSON (for
 * `corpus compare A B` and `corpus check A --against B`).
 *
 * Both forms give, per histogram of profile.h, its total variation
 * distance and every bin either profile uses (text: shares; JSON: counts
 * and totals, so shares and distances can be recomputed).
 */
#include "profile_internal.h"

#include "base_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void side(rb_buf *o, const char *tag, const char *name, const rb_profile *p)
{
    rb_buf_printf(o, "%s  %s: %llu routes, %llu paths, depth 1..%u, fingerprint xxh3:%016llx\n",
                  tag, name, (unsigned long long)p->routes, (unsigned long long)p->paths,
                  p->max_depth, (unsigned long long)p->fingerprint);
}

static double share(uint64_t n, uint64_t total)
{
    return total ? 100.0 * (double)n / (double)total : 0.0;
}

/* ---- what a person sees ------------------------------------------------------ */

/* The figures a person looks at first, each with its distance and
 * whether B is within tolerance of A (the source):
 *   shared prefix     the same words, its share of routes within 0.02
 *   params per route  within 10% (none where A has none)
 *   adjacent params   the share of routes with two in a row within 0.01
 *   first segments    a single one stays single
 *   extensions        the share of routes whose last segment ends in one
 *                     (a static word, a glob or a template) within 0.02,
 *                     no name A lacks */
enum { SEEN_PREFIX, SEEN_PARAMS, SEEN_ADJACENT, SEEN_FIRSTS, SEEN_EXTENSIONS, SEEN_COUNT };

static const char *const seen_names[SEEN_COUNT] = {
    "shared prefix", "params per route", "adjacent params", "first segments", "extensions"};
static const char *const seen_keys[SEEN_COUNT] = {
    "shared_prefix", "params_per_route", "adjacent_params", "first_segments", "extensions"};

typedef struct seen {
    double a[SEEN_COUNT], b[SEEN_COUNT], distance[SEEN_COUNT];
    bool ok[SEEN_COUNT];
    int new_ext; /* an extension name B has and A lacks, or -1 */
} seen;

static double ratio(uint64_t n, uint64_t total)
{
    return total ? (double)n / (double)total : 0.0;
}

static double absd(double x)
{
    return x < 0 ? -x : x;
}

static void seen_figures(const rb_profile *a, const rb_profile *b, seen *f)
{
    f->a[SEEN_PREFIX] = ratio(a->prefix_routes, a->routes);
    f->b[SEEN_PREFIX] = strcmp(a->prefix, b->prefix) == 0 ? ratio(b->prefix_routes, b->routes) : 0;
    f->a[SEEN_PARAMS] = ratio(a->params, a->routes);
    f->b[SEEN_PARAMS] = ratio(b->params, b->routes);
    f->a[SEEN_ADJACENT] = ratio(a->adjacent_params, a->routes);
    f->b[SEEN_ADJACENT] = ratio(b->adjacent_params, b->routes);
    f->a[SEEN_FIRSTS] = (double)rb_profile_level_sum(&a->level[1], RB_PF_NODES);
    f->b[SEEN_FIRSTS] = (double)rb_profile_level_sum(&b->level[1], RB_PF_NODES);
    uint64_t ea = 0, eb = 0; /* routes ending in an extension, templates included */
    for (int i = 0; i < RB_PROFILE_EXT_NAMES; i++) {
        ea += a->ext_names[i];
        eb += b->ext_names[i];
    }
    f->a[SEEN_EXTENSIONS] = ratio(ea, a->routes);
    f->b[SEEN_EXTENSIONS] = ratio(eb, b->routes);
    for (int i = 0; i < SEEN_COUNT; i++) f->distance[i] = absd(f->a[i] - f->b[i]);
    f->distance[SEEN_PREFIX] =
        strcmp(a->prefix, b->prefix) == 0 ? f->distance[SEEN_PREFIX] : 1.0;   /* other words */
    if (f->a[SEEN_PARAMS] > 0) f->distance[SEEN_PARAMS] /= f->a[SEEN_PARAMS]; /* relative */
    f->distance[SEEN_FIRSTS] = f->a[SEEN_FIRSTS] > 0 ? f->b[SEEN_FIRSTS] / f->a[SEEN_FIRSTS] : 0;
    f->new_ext = -1;
    for (int i = 0; i < RB_PROFILE_EXT_NAMES && f->new_ext < 0; i++)
        if (b->ext_names[i] && !a->ext_names[i]) f->new_ext = i;
    f->ok[SEEN_PREFIX] = f->distance[SEEN_PREFIX] <= RB_PROFILE_PREFIX_TOLERANCE;
    f->ok[SEEN_PARAMS] = f->a[SEEN_PARAMS] > 0
                             ? f->distance[SEEN_PARAMS] <= RB_PROFILE_PARAMS_TOLERANCE
                             : f->b[SEEN_PARAMS] == 0;
    f->ok[SEEN_ADJACENT] = f->distance[SEEN_ADJACENT] <= RB_PROFILE_ADJACENT_TOLERANCE;
    f->ok[SEEN_FIRSTS] = f->a[SEEN_FIRSTS] != 1 || f->b[SEEN_FIRSTS] == 1;
    f->ok[SEEN_EXTENSIONS] =
        f->distance[SEEN_EXTENSIONS] <= RB_PROFILE_PREFIX_TOLERANCE && f->new_ext < 0;
}

/* "like: within tolerance on every figure" or the figures that are not. */
static void seen_verdict(rb_buf *o, const seen *f)
{
    size_t bad = 0;
    for (int i = 0; i < SEEN_COUNT; i++) bad += !f->ok[i];
    if (!bad) {
        rb_buf_puts(o, "like: within tolerance on every figure\n");
        return;
    }
    rb_buf_puts(o, "like: not within tolerance on");
    for (int i = 0, k = 0; i < SEEN_COUNT; i++)
        if (!f->ok[i]) rb_buf_printf(o, "%s %s", k++ ? "," : "", seen_names[i]);
    rb_buf_puts(o, "\n");
}

static void seen_text(rb_buf *o, const rb_profile *a, const rb_profile *b)
{
    seen f;
    seen_figures(a, b, &f);
    char pa[300], pb[300];
    rb_buf_printf(o, "\n%-20s %20s %20s  %8s  %s\n", "what a person sees", "A (the source)", "B",
                  "distance", "tolerance");
    snprintf(pa, sizeof pa, "%s %.1f%%", a->prefix[0] ? a->prefix : "(none)",
             100 * ratio(a->prefix_routes, a->routes));
    snprintf(pb, sizeof pb, "%s %.1f%%", b->prefix[0] ? b->prefix : "(none)",
             100 * ratio(b->prefix_routes, b->routes));
    rb_buf_printf(o, "  %-18s %20s %20s  %8.3f  %s  same words, share within 0.02\n",
                  seen_names[SEEN_PREFIX], pa, pb, f.distance[SEEN_PREFIX],
                  f.ok[SEEN_PREFIX] ? "ok " : "NOT");
    rb_buf_printf(o, "  %-18s %20.3f %20.3f  %7.1f%%  %s  within 10%%\n", seen_names[SEEN_PARAMS],
                  f.a[SEEN_PARAMS], f.b[SEEN_PARAMS], 100 * f.distance[SEEN_PARAMS],
                  f.ok[SEEN_PARAMS] ? "ok " : "NOT");
    rb_buf_printf(o, "  %-18s %19.1f%% %19.1f%%  %8.3f  %s  share within 0.01\n",
                  seen_names[SEEN_ADJACENT], 100 * f.a[SEEN_ADJACENT], 100 * f.b[SEEN_ADJACENT],
                  f.distance[SEEN_ADJACENT], f.ok[SEEN_ADJACENT] ? "ok " : "NOT");
    rb_buf_printf(o, "  %-18s %20.0f %20.0f  %7.2fx  %s  a single one stays single\n",
                  seen_names[SEEN_FIRSTS], f.a[SEEN_FIRSTS], f.b[SEEN_FIRSTS],
                  f.distance[SEEN_FIRSTS], f.ok[SEEN_FIRSTS] ? "ok " : "NOT");
    rb_buf_printf(o, "  %-18s %19.1f%% %19.1f%%  %8.3f  %s  share within 0.02, no new name%s%s\n",
                  seen_names[SEEN_EXTENSIONS], 100 * f.a[SEEN_EXTENSIONS],
                  100 * f.b[SEEN_EXTENSIONS], f.distance[SEEN_EXTENSIONS],
                  f.ok[SEEN_EXTENSIONS] ? "ok " : "NOT", f.new_ext >= 0 ? ": B has ." : "",
                  f.new_ext >= 0 ? rb_profile_ext_name(f.new_ext) : "");
    for (int i = 0; i < RB_PROFILE_EXT_NAMES; i++)
        if (a->ext_names[i] || b->ext_names[i])
            rb_buf_printf(o, "    .%-16s %19.1f%% %19.1f%%\n", rb_profile_ext_name(i),
                          100 * ratio(a->ext_names[i], a->routes),
                          100 * ratio(b->ext_names[i], b->routes));
    seen_verdict(o, &f);
}

static void seen_json(cJSON *o, const rb_profile *a, const rb_profile *b)
{
    seen f;
    seen_figures(a, b, &f);
    cJSON *x = cJSON_AddObjectToObject(o, "seen");
    if (!x) return;
    cJSON_AddStringToObject(x, "a_prefix", a->prefix);
    cJSON_AddStringToObject(x, "b_prefix", b->prefix);
    bool all = true;
    for (int i = 0; i < SEEN_COUNT; i++) {
        cJSON *y = cJSON_AddObjectToObject(x, seen_keys[i]);
        if (!y) return;
        cJSON_AddNumberToObject(y, "a", f.a[i]);
        cJSON_AddNumberToObject(y, "b", f.b[i]);
        cJSON_AddNumberToObject(y, "distance", f.distance[i]);
        cJSON_AddBoolToObject(y, "within_tolerance", f.ok[i]);
        all = all && f.ok[i];
    }
    cJSON_AddBoolToObject(x, "within_tolerance", all);
}

int rb_profile_compare_text(const rb_profile *a, const char *name_a, const rb_profile *b,
                            const char *name_b, rb_buf *o, rb_error *err)
{
    rb_profile_distance dist;
    rb_profile_compare(a, b, &dist);
    side(o, "A", name_a, a);
    side(o, "B", name_b, b);
    rb_buf_puts(o, "\ndistance per histogram (total variation: 0 the same, 1 disjoint)\n");
    rb_profile_hist *h = malloc(2 * sizeof *h);
    if (!h) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory comparing profiles");
    for (int id = 0; id < RB_PH_COUNT; id++) {
        rb_profile_histogram(a, id, &h[0]);
        rb_buf_printf(o, "  %-17s %.3f   %s\n", h[0].name, dist.hist[id], h[0].title);
    }
    rb_buf_printf(o, "  %-17s %.3f\n", "mean", dist.mean);
    seen_text(o, a, b);
    for (int id = 0; id < RB_PH_COUNT; id++) {
        rb_profile_histogram(a, id, &h[0]);
        rb_profile_histogram(b, id, &h[1]);
        rb_buf_printf(o, "\n%s: distance %.3f\n  %-16s %8s %8s\n", h[0].title, dist.hist[id], "",
                      "A", "B");
        for (size_t i = 0; i < h[0].nbins; i++) {
            if (!h[0].count[i] && !h[1].count[i]) continue;
            rb_buf_printf(o, "  %-16s %7.1f%% %7.1f%%\n", h[0].label[i],
                          share(h[0].count[i], h[0].total), share(h[1].count[i], h[1].total));
        }
    }
    free(h);
    if (o->failed)
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory comparing profiles");
    return RB_OK;
}

static cJSON *json_side(const char *name, const rb_profile *p)
{
    cJSON *s = cJSON_CreateObject();
    char fp[32];
    snprintf(fp, sizeof fp, "xxh3:%016llx", (unsigned long long)p->fingerprint);
    cJSON_AddStringToObject(s, "file", name);
    cJSON_AddNumberToObject(s, "routes", (double)p->routes);
    cJSON_AddNumberToObject(s, "paths", (double)p->paths);
    cJSON_AddNumberToObject(s, "max_depth", p->max_depth);
    cJSON_AddStringToObject(s, "fingerprint", fp);
    return s;
}

/* The comparison as a cJSON object, or NULL when memory runs out. */
static cJSON *compare_json(const rb_profile *a, const char *name_a, const rb_profile *b,
                           const char *name_b)
{
    rb_profile_distance dist;
    rb_profile_compare(a, b, &dist);
    rb_profile_hist *h = malloc(2 * sizeof *h);
    cJSON *o = cJSON_CreateObject();
    if (!h || !o) {
        free(h);
        cJSON_Delete(o);
        return NULL;
    }
    cJSON_AddItemToObject(o, "a", json_side(name_a, a));
    cJSON_AddItemToObject(o, "b", json_side(name_b, b));
    cJSON *d = cJSON_AddObjectToObject(o, "distance");
    cJSON *hs = cJSON_AddArrayToObject(o, "histograms");
    for (int id = 0; id < RB_PH_COUNT; id++) {
        rb_profile_histogram(a, id, &h[0]);
        rb_profile_histogram(b, id, &h[1]);
        cJSON_AddNumberToObject(d, h[0].name, dist.hist[id]);
        cJSON *x = cJSON_CreateObject();
        cJSON_AddItemToArray(hs, x);
        cJSON_AddStringToObject(x, "name", h[0].name);
        cJSON_AddStringToObject(x, "title", h[0].title);
        cJSON_AddNumberToObject(x, "distance", dist.hist[id]);
        cJSON_AddNumberToObject(x, "a_total", (double)h[0].total);
        cJSON_AddNumberToObject(x, "b_total", (double)h[1].total);
        cJSON *bins = cJSON_AddArrayToObject(x, "bins");
        for (size_t i = 0; bins && i < h[0].nbins; i++) {
            if (!h[0].count[i] && !h[1].count[i]) continue;
            cJSON *bin = cJSON_CreateObject();
            cJSON_AddItemToArray(bins, bin);
            cJSON_AddStringToObject(bin, "label", h[0].label[i]);
            cJSON_AddNumberToObject(bin, "a", (double)h[0].count[i]);
            cJSON_AddNumberToObject(bin, "b", (double)h[1].count[i]);
        }
    }
    cJSON_AddNumberToObject(d, "mean", dist.mean);
    seen_json(o, a, b);
    free(h);
    return o;
}

int rb_profile_compare_json(const rb_profile *a, const char *name_a, const rb_profile *b,
                            const char *name_b, rb_buf *out, rb_error *err)
{
    return rb__json_out(compare_json(a, name_a, b, name_b), out, "comparing profiles", err);
}
