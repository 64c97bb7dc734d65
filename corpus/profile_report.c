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
    free(h);
    return o;
}

int rb_profile_compare_json(const rb_profile *a, const char *name_a, const rb_profile *b,
                            const char *name_b, rb_buf *out, rb_error *err)
{
    return rb__profile_json_out(compare_json(a, name_a, b, name_b), out, "comparing profiles", err);
}
