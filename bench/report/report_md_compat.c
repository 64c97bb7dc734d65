/*
 * report_md_compat.c — report.md's per-language verdicts and the
 * compatibility of every router with a scenario's table (ecosystem.h),
 * whole: every refusal with its reason, every router that answered
 * otherwise with its first differing requests.
 */
#include "bundle.h"
#include "ecosystem.h"
#include "report.h"

#include <stdio.h>
#include <string.h>

/* s as the text of a Markdown table cell: '|' escaped, newlines as blanks. */
static void cell(rb_buf *o, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            rb_buf_puts(o, "\\|");
        else if (*s == '\n' || *s == '\r')
            rb_buf_puts(o, " ");
        else
            rb_buf_append(o, s, 1);
    }
}

void rb_bundle_report_ecosystems(const rb_bundle *b, rb_buf *o)
{
    bool any = false;
    size_t with = 0; /* scenarios with peers: each named when there are several */
    for (size_t i = 0; i < b->nscenarios; i++) {
        rb_ecosystem e[1];
        with += rb_ecosystems(b, i, e, 1) > 0;
    }
    for (size_t i = 0; i < b->nscenarios; i++) {
        rb_ecosystem e[RB_ECOSYSTEM_LANGS];
        size_t n = rb_ecosystems(b, i, e, RB_ECOSYSTEM_LANGS);
        if (!n) continue;
        if (!any) rb_buf_printf(o, "### Per language\n\n%s.\n\n", rb_ecosystem_heading);
        any = true;
        if (with > 1) rb_buf_printf(o, "%s:\n\n", b->scenarios[i].name);
        for (size_t k = 0; k < n; k++) rb_buf_printf(o, "- %s\n", e[k].line);
        rb_buf_puts(o, "\n");
    }
}

void rb_bundle_report_compat(const rb_bundle *b, size_t si, rb_buf *o)
{
    rb_compat_row rows[RB_ECOSYSTEM_LANGS * RB_ECOSYSTEM_RUNNERS];
    size_t n = rb_compat_rows(b, si, rows, sizeof rows / sizeof rows[0]);
    if (!rb_compat_worth(rows, n) || rb_bundle_is_condition(b, si)) return;
    const rb_bundle_scenario *s = &b->scenarios[si];
    rb_buf_printf(o, "Compatibility with this table (every answer checked against EXPECTED and "
                     "linear before any timing):\n\n"
                     "| router | language | routes | first refusal | answers | first differing "
                     "requests (method path: expected, got) |\n|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < n; i++) {
        const rb_compat_row *r = &rows[i];
        char routes[96], answers[128];
        rb_compat_routes_text(b, si, r, routes, sizeof routes);
        rb_compat_answers_text(b, si, r, answers, sizeof answers);
        rb_buf_puts(o, "| ");
        cell(o, r->router);
        rb_buf_printf(o, " | %s%s | %s | ", r->language,
                      r->peer ? (r->in_process ? ", in process" : ", own process") : "", routes);
        cell(o, *r->reason ? r->reason : "-");
        rb_buf_printf(o, " | %s | ", answers);
        const rb_bundle_result *x = r->result == SIZE_MAX ? NULL : &s->results[r->result];
        if (!x || !x->ndiffers) rb_buf_puts(o, "-");
        for (size_t k = 0; x && k < x->ndiffers; k++) {
            const rb_bundle_differ *d = &x->differs[k];
            rb_buf_printf(o, "%s`", k ? "; " : "");
            cell(o, d->method);
            rb_buf_puts(o, " ");
            cell(o, d->path);
            rb_buf_puts(o, "`: ");
            cell(o, d->expected);
            rb_buf_puts(o, ", got ");
            cell(o, d->got);
        }
        rb_buf_puts(o, " |\n");
    }
    rb_buf_puts(o, "\n");
}
