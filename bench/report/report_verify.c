/*
 * report_verify.c — verify's results as text and JSON (report_verify.h).
 */
#include "report_verify.h"

#include "base_internal.h"
#include "json_out.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

void rb_verify_run_text(const rb_verify_run *r, rb_buf *out)
{
    if (r->absent) {
        rb_buf_printf(out, "%-8s %-10s skipped: not in $ROUTEBENCH_DATA (%s)\n", r->router,
                      r->corpus, r->routes_path);
        return;
    }
    if (r->skipped) {
        rb_buf_printf(out, "%-8s %-10s skipped: the corpus uses features the router lacks\n",
                      r->router, r->corpus);
        return;
    }
    if (r->status < 0) return;
    const rb_verify_report *rep = &r->rep;
    rb_buf_printf(out, "%-8s %s: %zu/%zu agree with EXPECTED, %zu/%zu with linear", r->router,
                  r->requests_path, rep->agree_expected, rep->requests, rep->agree_linear,
                  rep->requests);
    if (rep->refused) rb_buf_printf(out, "; %zu/%zu routes refused", rep->refused, rep->routes);
    rb_buf_puts(out, "\n");
    if (rep->refused) rb_buf_printf(out, "  first refusal: %s\n", rep->first_refusal.message);
    if (rep->expect_refused)
        rb_buf_printf(out,
                      "  %zu requests expect a refused route (answered as linear answers "
                      "without it; not listed)\n",
                      rep->expect_refused);
    for (size_t k = 0; k < rep->nexamples; k++) {
        char line[800];
        rb_verify_example_format(&rep->examples[k], r->requests, line, sizeof line);
        rb_buf_printf(out, "  %s\n", line);
    }
}

void rb_verify_totals_text(const rb_verify_totals *t, rb_buf *out)
{
    rb_buf_printf(out, "verify --all: %zu runs, %zu failed, %zu skipped", t->runs, t->failed,
                  t->skipped);
    if (t->peers_disagreeing)
        rb_buf_printf(out, ", %zu peer runs disagreeing (reported above, not failures)",
                      t->peers_disagreeing);
    rb_buf_puts(out, "\n");
}

struct rb_verify_doc {
    cJSON *runs;
};

rb_verify_doc *rb_verify_doc_new(void)
{
    rb_verify_doc *d = malloc(sizeof *d);
    if (d && !(d->runs = cJSON_CreateArray())) {
        free(d);
        d = NULL;
    }
    return d;
}

void rb_verify_doc_free(rb_verify_doc *d)
{
    if (!d) return;
    cJSON_Delete(d->runs);
    free(d);
}

static cJSON *disagreement(const rb_verify_run *r, const rb_verify_example *x)
{
    const rb_request *q = &r->requests->reqs[x->request];
    char got[300], want[300];
    rb_match_format(&x->got, got, sizeof got);
    rb_match_format(&x->want, want, sizeof want);
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "line", (double)q->line);
    cJSON_AddStringToObject(e, "method", rb_method_name(q->method));
    char *path = malloc(q->len + 1);
    if (path) {
        memcpy(path, rb_request_path(r->requests, x->request), q->len);
        path[q->len] = '\0';
        cJSON_AddStringToObject(e, "path", path);
        free(path);
    }
    cJSON_AddNumberToObject(e, "expected", q->expected);
    cJSON_AddStringToObject(e, "got", got);
    cJSON_AddStringToObject(e, "linear", want);
    return e;
}

static cJSON *run_json(const rb_verify_run *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "router", r->router);
    if (r->corpus)
        cJSON_AddStringToObject(o, "corpus", r->corpus);
    else
        cJSON_AddNullToObject(o, "corpus");
    cJSON_AddStringToObject(o, "routes", r->routes_path);
    cJSON_AddStringToObject(o, "requests", r->requests_path);
    cJSON_AddBoolToObject(o, "peer", r->peer);
    cJSON_AddBoolToObject(o, "skipped", r->skipped);
    if (r->absent) cJSON_AddBoolToObject(o, "absent", true);
    if (r->skipped) return o;
    if (r->status < 0) {
        cJSON_AddStringToObject(o, "error", r->err.message);
        cJSON_AddBoolToObject(o, "ok", false);
        return o;
    }
    const rb_verify_report *rep = &r->rep;
    cJSON_AddNumberToObject(o, "route_count", (double)rep->routes);
    cJSON_AddNumberToObject(o, "refused", (double)rep->refused);
    if (rep->refused) cJSON_AddStringToObject(o, "first_refusal", rep->first_refusal.message);
    cJSON_AddNumberToObject(o, "request_count", (double)rep->requests);
    cJSON_AddNumberToObject(o, "agree_expected", (double)rep->agree_expected);
    cJSON_AddNumberToObject(o, "agree_linear", (double)rep->agree_linear);
    cJSON_AddNumberToObject(o, "expect_refused", (double)rep->expect_refused);
    cJSON *ex = cJSON_AddArrayToObject(o, "disagreements");
    for (size_t k = 0; k < rep->nexamples; k++)
        cJSON_AddItemToArray(ex, disagreement(r, &rep->examples[k]));
    cJSON_AddBoolToObject(o, "ok", rb_verify_ok(rep));
    return o;
}

void rb_verify_doc_add(rb_verify_doc *d, const rb_verify_run *r)
{
    cJSON_AddItemToArray(d->runs, run_json(r));
}

int rb_verify_doc_render(rb_verify_doc *d, const rb_verify_totals *t, rb_buf *out, rb_error *err)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "schema", "routebench-verify");
    cJSON_AddNumberToObject(o, "schema_version", 1);
    cJSON_AddItemReferenceToObject(o, "runs", d->runs);
    cJSON *tot = cJSON_AddObjectToObject(o, "totals");
    cJSON_AddNumberToObject(tot, "runs", (double)t->runs);
    cJSON_AddNumberToObject(tot, "failed", (double)t->failed);
    cJSON_AddNumberToObject(tot, "skipped", (double)t->skipped);
    cJSON_AddNumberToObject(tot, "peers_disagreeing", (double)t->peers_disagreeing);
    cJSON_AddBoolToObject(o, "ok", t->failed == 0);
    return rb__json_out(o, out, NULL, err);
}
