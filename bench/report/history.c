/*
 * history.c — saved results across commits: loading, series, steps and the
 * text report (history.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "history.h"

#include "changepoint.h"
#include "compare.h"
#include "file.h"
#include "base_internal.h"
#include "metric.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- loading --------------------------------------------------------------- */

static int by_name(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

/* The result's label: its first library's commit, else the tool's. */
static void label(rb_history_result *r)
{
    const char *c =
        r->b.nlibraries > 0 && r->b.libraries[0].commit[0] ? r->b.libraries[0].commit : r->b.commit;
    snprintf(r->commit, sizeof r->commit, "%s", *c ? c : r->name);
}

static int load_one(const char *dir, const char *name, rb_history_result *r, rb_error *err)
{
    char path[4096];
    struct stat st;
    int n = snprintf(path, sizeof path, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= sizeof path - 16)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "%s/%s: path too long", dir, name);
    if (stat(path, &st) < 0)
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "%s: cannot stat it", path);
    if (S_ISDIR(st.st_mode)) {
        snprintf(path + n, sizeof path - (size_t)n, "/summary.json");
        if (stat(path, &st) < 0)
            return rb__error(err, RB_EIO, RB_NO_OFFSET, "%s: a directory without summary.json",
                             path);
    }
    char *text = NULL;
    size_t len = 0;
    int rc = rb_file_read_max(path, RB_FILE_RESULT_MAX, &text, &len, err);
    if (rc == RB_OK) {
        rc = rb_bundle_json_read(text, len, &r->b, err);
        if (rc < 0) {
            char inner[sizeof err->message];
            snprintf(inner, sizeof inner, "%s", err->message);
            rb__error(err, rc, RB_NO_OFFSET, "%s: %s", path, inner);
        }
    }
    free(text);
    if (rc == RB_OK) {
        snprintf(r->name, sizeof r->name, "%s", name);
        label(r);
    }
    return rc;
}

int rb_history_load(const char *dir, rb_history *h, rb_error *err)
{
    memset(h, 0, sizeof *h);
    DIR *d = opendir(dir);
    if (!d) return rb__error(err, RB_EIO, RB_NO_OFFSET, "%s: cannot open the directory", dir);
    char **names = calloc(RB_HISTORY_MAX_RESULTS, sizeof *names);
    size_t n = 0;
    int rc = names ? RB_OK : rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    struct dirent *e;
    while (rc == RB_OK && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof h->results->name) continue;
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) < 0) continue;
        if (!S_ISDIR(st.st_mode) && !ends_with(e->d_name, ".json")) continue;
        if (n == RB_HISTORY_MAX_RESULTS) {
            rc = rb__error(err, RB_EINVAL, RB_NO_OFFSET, "%s: more than %d results", dir,
                           RB_HISTORY_MAX_RESULTS);
            break;
        }
        names[n] = strdup(e->d_name);
        if (!names[n++]) rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    }
    closedir(d);
    if (rc == RB_OK && n == 0)
        rc = rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                       "%s holds no saved result (NAME.json or a bundle directory)", dir);
    if (rc == RB_OK) {
        qsort(names, n, sizeof *names, by_name);
        h->results = calloc(n, sizeof *h->results);
        if (!h->results) rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    }
    for (size_t i = 0; rc == RB_OK && i < n; i++) {
        rc = load_one(dir, names[i], &h->results[i], err);
        if (rc == RB_OK) h->nresults++;
    }
    for (size_t i = 0; names && i < n; i++) free(names[i]);
    free(names);
    if (rc < 0) rb_history_free(h);
    return rc;
}

void rb_history_free(rb_history *h)
{
    for (size_t i = 0; i < h->nresults; i++) rb_bundle_free(&h->results[i].b);
    for (size_t i = 0; i < h->nseries; i++) free(h->series[i].points);
    free(h->results);
    free(h->segments);
    free(h->series);
    memset(h, 0, sizeof *h);
}

/* ---- series and steps ------------------------------------------------------ */

static rb_history_series *series_for(rb_history *h, size_t segment, const char *scenario,
                                     const char *router, size_t cap)
{
    for (size_t i = 0; i < h->nseries; i++) {
        rb_history_series *s = &h->series[i];
        if (s->segment == segment && strcmp(s->scenario, scenario) == 0 &&
            strcmp(s->router, router) == 0)
            return s;
    }
    rb_history_series *s = &h->series[h->nseries++];
    memset(s, 0, sizeof *s);
    s->segment = segment;
    snprintf(s->scenario, sizeof s->scenario, "%s", scenario);
    snprintf(s->router, sizeof s->router, "%s", router);
    s->points = calloc(cap, sizeof *s->points);
    return s->points ? s : NULL;
}

static double median_of(const double *x, size_t n)
{
    double *tmp = malloc(n * sizeof *tmp), m = NAN;
    if (tmp && rb_stats_median(x, n, &m, tmp) < 0) m = NAN;
    free(tmp);
    return m;
}

/* Mark the steps of s (metric exact or not). */
static int steps(rb_history_series *s, bool exact, double alpha)
{
    size_t n = s->npoints;
    if (n < 2) return RB_OK;
    double *x = malloc(n * sizeof *x);
    size_t *starts = malloc(n * sizeof *starts), count = 0;
    int rc = x && starts ? RB_OK : RB_ENOMEM;
    for (size_t i = 0; rc == RB_OK && i < n; i++) x[i] = s->points[i].value;
    if (rc == RB_OK)
        rc = rb_changepoint_find(x, n, exact, alpha, RB_CHANGEPOINT_MIN_SEGMENT, starts, n, &count);
    for (size_t k = 0; rc == RB_OK && k < count && k < n; k++) {
        size_t at = starts[k];
        size_t from = k > 0 ? starts[k - 1] : 0, to = k + 1 < count ? starts[k + 1] : n;
        double before = exact ? x[at - 1] : median_of(x + from, at - from);
        double after = exact ? x[at] : median_of(x + at, to - at);
        s->points[at].step = true;
        s->points[at].change = before > 0 ? after / before - 1.0 : NAN;
    }
    free(x);
    free(starts);
    return rc;
}

int rb_history_analyse(rb_history *h, double alpha, rb_error *err)
{
    size_t n = h->nresults, cap = 0;
    h->segments = calloc(n ? n : 1, sizeof *h->segments);
    if (!h->segments) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    for (size_t i = 0; i < n; i++) {
        rb_buf diff = {0};
        if (i == 0 || rb_compare_identity(&h->results[i - 1].b, &h->results[i].b, &diff) > 0) {
            rb_history_segment *g = &h->segments[h->nsegments++];
            g->first = i;
            snprintf(g->why, sizeof g->why, "%s", diff.data ? diff.data : "");
            for (char *c = g->why; *c; c++)
                if (*c == '\n') *c = c[1] ? ';' : '\0';
        }
        rb_buf_free(&diff);
        h->segments[h->nsegments - 1].last = i;
        for (size_t s = 0; s < h->results[i].b.nscenarios; s++)
            cap += h->results[i].b.scenarios[s].nresults;
    }
    h->series = calloc(cap ? cap : 1, sizeof *h->series);
    if (!h->series) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    for (size_t g = 0; g < h->nsegments; g++) {
        const rb_history_segment *seg = &h->segments[g];
        size_t len = seg->last - seg->first + 1;
        for (size_t i = seg->first; i <= seg->last; i++) {
            const rb_bundle *b = &h->results[i].b;
            for (size_t s = 0; s < b->nscenarios; s++) {
                const rb_bundle_scenario *sc = &b->scenarios[s];
                for (size_t r = 0; r < sc->nresults; r++) {
                    char name[RB_BUNDLE_NAME];
                    rb_compare_router_name(sc->results[r].router, name, sizeof name);
                    rb_history_series *ser = series_for(h, g, sc->name, name, len);
                    if (!ser) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
                    if (ser->npoints == len) continue; /* a router twice: the first */
                    rb_history_point *p = &ser->points[ser->npoints++];
                    p->result = i;
                    p->value = sc->results[r].median_ns;
                }
            }
        }
    }
    for (size_t i = 0; i < h->nseries; i++) {
        rb_history_series *s = &h->series[i];
        bool exact = rb_metric_exact(h->results[s->points[0].result].b.metric);
        if (steps(s, exact, alpha) < 0)
            return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    }
    return RB_OK;
}

/* ---- the text report --------------------------------------------------------- */

static const rb_history_point *point_at(const rb_history_series *s, size_t result)
{
    for (size_t i = 0; i < s->npoints; i++)
        if (s->points[i].result == result) return &s->points[i];
    return NULL;
}

static void value_text(int metric, double v, char *buf, size_t cap)
{
    if (rb_metric_exact(metric))
        snprintf(buf, cap, "%.2f", v);
    else
        snprintf(buf, cap, "%.3g", v);
}

/* One table: a scenario of a segment, a column per router. */
static void scenario_table(const rb_history *h, const rb_history_segment *seg, size_t g,
                           const char *scenario, rb_buf *o)
{
    const rb_history_series *cols[32];
    size_t nc = 0;
    for (size_t i = 0; i < h->nseries && nc < 32; i++)
        if (h->series[i].segment == g && strcmp(h->series[i].scenario, scenario) == 0)
            cols[nc++] = &h->series[i];
    int metric = h->results[seg->first].b.metric;
    rb_buf_printf(o, "\n%s: %s per lookup (* a step)\n  %-4s %-14s", scenario,
                  rb_metric_unit(metric), "#", "commit");
    for (size_t c = 0; c < nc; c++) rb_buf_printf(o, " %12s", cols[c]->router);
    rb_buf_puts(o, "\n");
    for (size_t i = seg->first; i <= seg->last; i++) {
        rb_buf_printf(o, "  %-4zu %-18.18s", i + 1, h->results[i].commit);
        for (size_t c = 0; c < nc; c++) {
            const rb_history_point *p = point_at(cols[c], i);
            char v[32] = "-";
            if (p) value_text(metric, p->value, v, sizeof v);
            rb_buf_printf(o, " %11s%s", v, p && p->step ? "*" : " ");
        }
        rb_buf_puts(o, "\n");
    }
}

void rb_history_text(const rb_history *h, rb_buf *o)
{
    if (h->nresults == 0) return;
    int metric = h->results[0].b.metric;
    bool exact = rb_metric_exact(metric);
    rb_buf_printf(o, "history: %zu results, %zu series of comparable results; --metric %s (%s)\n",
                  h->nresults, h->nsegments, rb_metric_name(metric),
                  exact ? "counted: identical code counts identically, so every change is a "
                          "step, however small"
                        : "time: steps by Pettitt's rank test at 1% (binary segmentation) on "
                          "the per-commit medians");
    for (size_t g = 0; g < h->nsegments; g++) {
        const rb_history_segment *seg = &h->segments[g];
        const rb_bundle *b = &h->results[seg->first].b;
        rb_buf_printf(o, "\nseries %zu: results %zu-%zu (%s .. %s); %s, %s%s%s\n", g + 1,
                      seg->first + 1, seg->last + 1, h->results[seg->first].commit,
                      h->results[seg->last].commit, b->compiler, b->cpu_model,
                      b->valgrind[0] ? ", " : "", b->valgrind);
        if (seg->why[0])
            rb_buf_printf(o, "  a new series: not comparable with the one before: %s\n", seg->why);
        const char *done[64];
        size_t nd = 0;
        for (size_t i = 0; i < h->nseries; i++) {
            const rb_history_series *s = &h->series[i];
            if (s->segment != g) continue;
            bool seen = false;
            for (size_t k = 0; k < nd; k++) seen |= strcmp(done[k], s->scenario) == 0;
            if (seen || nd == 64) continue;
            done[nd++] = s->scenario;
            scenario_table(h, seg, g, s->scenario, o);
        }
    }
    /* the flagged commits, each with every series that stepped there */
    size_t flagged = 0;
    rb_buf_puts(o, "\ncommits flagged:\n");
    for (size_t i = 0; i < h->nresults; i++) {
        bool first = true;
        for (size_t k = 0; k < h->nseries; k++) {
            const rb_history_point *p = point_at(&h->series[k], i);
            if (!p || !p->step) continue;
            if (first) rb_buf_printf(o, "  #%zu %s:", i + 1, h->results[i].commit);
            rb_buf_printf(o, "%s %s on %s %+.2f%%", first ? "" : ",", h->series[k].router,
                          h->series[k].scenario, 100 * p->change);
            first = false;
        }
        if (!first) {
            rb_buf_puts(o, "\n");
            flagged++;
        }
    }
    if (flagged == 0) rb_buf_puts(o, "  none\n");
    rb_buf_printf(o, "(a change is the value per lookup after / before - 1: + is %s)\n",
                  exact ? "more instructions, slower" : "more time, slower");
}
