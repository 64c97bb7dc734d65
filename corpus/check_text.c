/*
 * check_text.c — the report of a corpus check as text, and the whole
 * output of `corpus check` (check_text.h).
 */
#include "check_text.h"

#include "base_internal.h"
#include "profile_file.h"

#include <string.h>

static size_t line_of(const rb_route_table *t, uint32_t r)
{
    return t->routes[r].line ? t->routes[r].line : (size_t)r + 1;
}

/* "METHOD PATTERN" of route r, the pattern cut at 100 bytes. */
static void route(rb_buf *b, const rb_route_table *t, uint32_t r)
{
    const rb_route_entry *e = &t->routes[r];
    rb_buf_printf(b, "%s %.*s", rb_method_name(e->method), (int)(e->len > 100 ? 100 : e->len),
                  rb_route_pattern(t, r));
}

static void pairs(rb_buf *b, const rb_route_table *t, const char *what, const rb_check_pair *p,
                  size_t n)
{
    for (size_t i = 0; i < n && i < RB_CHECK_TEXT_SHOW; i++) {
        rb_buf_printf(b, "  line %zu ", line_of(t, p[i].route));
        route(b, t, p[i].route);
        rb_buf_printf(b, " %s line %zu\n", what, line_of(t, p[i].earlier));
    }
    if (n > RB_CHECK_TEXT_SHOW)
        rb_buf_printf(b, "  ... and %zu more (--json lists all)\n", n - RB_CHECK_TEXT_SHOW);
}

static void shadows(rb_buf *b, const rb_route_table *t, const rb_check_report *r)
{
    size_t ns = r->shadowed + r->possibly_shadowed;
    for (size_t i = 0; i < ns && i < RB_CHECK_TEXT_SHOW; i++) {
        const rb_check_shadow *s = &r->shadows[i];
        rb_buf_printf(b, "  line %zu ", line_of(t, s->route));
        route(b, t, s->route);
        rb_buf_printf(b, " %s", s->possible ? "possibly shadowed" : "shadowed");
        if (s->by != RB_ST_NONE) {
            rb_buf_printf(b, ", e.g. by line %zu ", line_of(t, s->by));
            route(b, t, s->by);
        }
        rb_buf_puts(b, "\n");
    }
    if (ns > RB_CHECK_TEXT_SHOW)
        rb_buf_printf(b, "  ... and %zu more (--json lists all)\n", ns - RB_CHECK_TEXT_SHOW);
}

static void histograms(rb_buf *b, const rb_check_report *r)
{
    rb_buf_printf(b, "  depth               %zu..%zu:", r->min_depth, r->max_depth);
    for (int d = 1; d < RB_CHECK_DEPTHS; d++)
        if (r->depth[d])
            rb_buf_printf(b, " %d%s:%zu", d, d == RB_CHECK_DEPTHS - 1 ? "+" : "", r->depth[d]);
    rb_buf_puts(b, "   (routes by segments)\n");
    rb_buf_puts(b, "  fan-out            ");
    for (int k = 0; k < RB_CHECK_FANOUT_BUCKETS; k++)
        if (r->fanout[k]) rb_buf_printf(b, " %s:%zu", rb_check_fanout_bucket(k), r->fanout[k]);
    rb_buf_printf(b, "   (prefixes by children; max %zu at %s)\n", r->max_fanout,
                  r->max_fanout_prefix);
    rb_buf_printf(b, "  most behind one prefix %zu at %s\n", r->max_behind, r->max_behind_prefix);
}

static void report(rb_buf *b, const char *path, const rb_route_table *t, const rb_check_report *r)
{
    rb_buf_printf(b, "%s\n", path);
    rb_buf_printf(b, "  routes              %zu\n", r->routes);
    rb_buf_printf(b, "  exact duplicates    %zu\n", r->exact_duplicates);
    pairs(b, t, "repeats", r->exact, r->exact_duplicates);
    rb_buf_printf(b, "  shape duplicates    %zu   (same method and shape, exact ones included)\n",
                  r->shape_duplicates);
    pairs(b, t, "has the method and shape of", r->shape, r->shape_duplicates);
    rb_buf_printf(b, "  shadowed            %zu", r->shadowed);
    if (r->possibly_shadowed)
        rb_buf_printf(b, " (+ %zu possibly, from sampling)", r->possibly_shadowed);
    rb_buf_puts(b, "\n");
    shadows(b, t, r);
    rb_buf_printf(b, "  distinct routes     %zu   (method, shape)\n", r->distinct_routes);
    rb_buf_printf(b, "  distinct shapes     %zu\n", r->distinct_shapes);
    rb_buf_printf(b, "  distinct skeletons  %zu   (static words erased too)\n",
                  r->distinct_skeletons);
    histograms(b, r);
    if (r->sampled)
        rb_buf_printf(b,
                      "  shadowing sampled for %zu routes (globs, templates, or a search over its "
                      "state cap)\n",
                      r->sampled);
    if (r->over_budget)
        rb_buf_printf(b, "  work budget: %zu routes possibly shadowed, their search cut short\n",
                      r->over_budget);
    rb_buf_printf(b, "  fingerprint         xxh3:%016llx\n", (unsigned long long)r->fingerprint);
}

int rb_check_text(const char *path, const rb_route_table *t, const rb_check_report *r,
                  const rb_check_text_options *opt, rb_buf *out, rb_error *err)
{
    rb_buf cmp = {0};
    int rc = RB_OK;
    if (opt->against) {
        rc = rb_profile_compare_table(t, path, opt->against, opt->json, &cmp, err);
        if (rc < 0) {
            rb_buf_free(&cmp);
            char why[sizeof err->message];
            snprintf(why, sizeof why, "%s", err->message);
            return rb__error(err, rc, err->offset, "--against: %s", why);
        }
    }
    if (opt->json) {
        if (opt->against) rb_buf_puts(out, "{\n\"check\": ");
        rc = rb_check_report_json(path, t, r, opt->min_unique, out, err);
        if (rc == RB_OK && opt->against) rb_buf_printf(out, ",\n\"against\": %s}\n", cmp.data);
    } else {
        report(out, path, t, r);
        if (opt->min_unique)
            rb_buf_printf(out, "  --min-unique %zu: %s (%zu distinct routes)\n", opt->min_unique,
                          r->distinct_routes >= opt->min_unique ? "ok" : "FAILED",
                          r->distinct_routes);
        char verdict[256];
        rb_check_verdict(r, opt->min_unique, verdict, sizeof verdict);
        rb_buf_printf(out, "%s\n", verdict);
        if (opt->against) rb_buf_printf(out, "\nprofile against %s\n%s", opt->against, cmp.data);
    }
    rb_buf_free(&cmp);
    if (rc == RB_OK && out->failed) rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    return rc;
}
