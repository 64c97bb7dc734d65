/*
 * outputs.c — the table of outputs (output.h).  The renderers of the
 * bundle's own files keep their signatures (bundle.h, report_console.h);
 * the rows below wrap them.  A new format is a file of its own and a row
 * here.
 */
#include "output.h"

#include "base_internal.h"
#include "format.h"
#include "report_console.h"
#include "report_html.h"

#include <string.h>

/* ---- the renderers of the bundle's files, wrapped ---------------------------------------------- */

/* The terminal's text of a whole bundle: every table, then the summary. */
static int render_terminal(const rb_bundle *b, rb_buf *out, rb_error *err)
{
    rb_console_opts o = {false};
    (void)err;
    for (size_t i = 0; i < b->nscenarios; i++) {
        /* a table shows its other conditions with it (choose) */
        if (i + 1 < b->nscenarios && rb_bundle_is_condition(b, i + 1)) continue;
        rb_console_scenario(b, i, &o, out);
    }
    rb_console_summary(b, &o, out);
    return RB_OK;
}

/* report.md, a '<' outside a code span escaped: a file or router name
 * is never read as inline HTML. */
static int render_markdown(const rb_bundle *b, rb_buf *out, rb_error *err)
{
    rb_buf md = {0};
    int rc = rb_bundle_report_md(b, &md, err);
    if (rc == RB_OK) rb_format_md(out, md.data ? md.data : "", md.len);
    if (md.failed) out->failed = true;
    rb_buf_free(&md);
    return rc;
}

#define CHART(c, id)                                                                               \
    static int render_##id(const rb_bundle *b, rb_buf *out, rb_error *err)                         \
    {                                                                                              \
        return rb_bundle_chart_render(b, (c), out, err);                                           \
    }                                                                                              \
    static bool has_##id(const rb_bundle *b)                                                       \
    {                                                                                              \
        return rb_bundle_chart_has_data(b, (c));                                                   \
    }
CHART(RB_CHART_NS, ns)
CHART(RB_CHART_RATIO, ratio)
CHART(RB_CHART_SCALING, scaling)
CHART(RB_CHART_COST, cost)
#undef CHART

static const rb_output terminal = {"terminal", NULL, NULL, NULL, render_terminal, NULL, false};
static const rb_output markdown = {"markdown",      NULL, "report.md", NULL,
                                   render_markdown, NULL, false};
static const rb_output html = {"html", NULL, "report.html", NULL, rb_bundle_report_html,
                               NULL,   false};
static const rb_output chart_ns = {"chart-ns", NULL, "chart.svg", NULL, render_ns, has_ns, false};
static const rb_output chart_ratio = {"chart-ratio", NULL,      "ratio.svg", NULL,
                                      render_ratio,  has_ratio, false};
static const rb_output chart_scaling = {"chart-scaling", NULL,        "scaling.svg", NULL,
                                        render_scaling,  has_scaling, false};
static const rb_output chart_cost = {"chart-cost", NULL,     "cost.svg", NULL,
                                     render_cost,  has_cost, false};
static const rb_output json = {"json",
                               "--export-json",
                               "summary.json",
                               "write summary.json's document to FILE",
                               rb_bundle_json_write,
                               NULL,
                               true};
static const rb_output csv = {"csv",
                              "--export-csv",
                              "trials.csv",
                              "write trials.csv's rows (one per measured trial) to FILE",
                              rb_bundle_csv_write,
                              NULL,
                              true};

/* the formats in files of their own */
extern const rb_output rb__output_pair;
extern const rb_output rb__output_junit;
extern const rb_output rb__output_bmf;

/* ---- the table ----------------------------------------------------------------------------------- */

/* one row a line (clang-format keeps a list with comments as it is) */
static const rb_output *const table[] = {
    &terminal,         /* the tables and the summary */
    &markdown,         /* report.md */
    &html,             /* report.html */
    &chart_ns,         /* chart.svg */
    &chart_ratio,      /* ratio.svg */
    &chart_scaling,    /* scaling.svg */
    &chart_cost,       /* cost.svg */
    &json,             /* summary.json, --export-json */
    &csv,              /* trials.csv, --export-csv */
    &rb__output_pair,  /* pair's ratios and gate (report_pair.c) */
    &rb__output_junit, /* --export-junit (report_junit.c) */
    &rb__output_bmf,   /* --export-bmf (report_bmf.c) */
};
#define NTABLE (sizeof table / sizeof table[0])

size_t rb_output_count(void)
{
    return NTABLE;
}

const rb_output *rb_output_at(size_t i)
{
    return i < NTABLE ? table[i] : NULL;
}

const rb_output *rb_output_find(const char *name)
{
    for (size_t i = 0; i < NTABLE; i++) {
        const rb_output *o = table[i];
        if (strcmp(o->name, name) == 0 || (o->option && strcmp(o->option, name) == 0) ||
            (o->file && strcmp(o->file, name) == 0))
            return o;
    }
    return NULL;
}

int rb_output_render(const rb_output *o, const rb_bundle *b, rb_buf *out, rb_error *err)
{
    rb_buf_free(out);
    int rc = o->render(b, out, err);
    if (rc == RB_OK && out->failed)
        rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory rendering %s", o->name);
    return rc;
}
