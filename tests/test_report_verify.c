/*
 * test_report_verify.c — verify's results as text and JSON
 * (bench/report/report_verify.h), on hand-made runs: a skipped run says
 * why in one line, a run with an error has no text of its own, the totals
 * count peers apart, and the document carries the schema and the totals.
 */
#include <criterion/criterion.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "report_verify.h"

Test(report_verify, skipped_and_absent_runs_say_why)
{
    rb_verify_run r = {
        .router = "glob", .corpus = "github", .routes_path = "/d/github.routes", .skipped = true};
    rb_buf b = {0};
    rb_verify_run_text(&r, &b);
    cr_expect_str_eq(b.data, "glob     github     skipped: the corpus uses features the router "
                             "lacks\n");
    rb_buf_free(&b);
    r.absent = true;
    rb_verify_run_text(&r, &b);
    cr_expect_str_eq(b.data, "glob     github     skipped: not in $ROUTEBENCH_DATA "
                             "(/d/github.routes)\n");
    rb_buf_free(&b);
    rb_verify_run e = {.router = "radix", .status = RB_EIO};
    rb_verify_run_text(&e, &b);
    cr_expect_eq(b.len, 0, "an error is the caller's message");
    rb_buf_free(&b);
}

Test(report_verify, totals_count_peers_apart)
{
    rb_verify_totals t = {12, 1, 3, 2};
    rb_buf b = {0};
    rb_verify_totals_text(&t, &b);
    cr_expect_str_eq(b.data, "verify --all: 12 runs, 1 failed, 3 skipped, 2 peer runs disagreeing "
                             "(reported above, not failures)\n");
    rb_buf_free(&b);
}

Test(report_verify, document_has_schema_runs_and_totals)
{
    rb_verify_doc *d = rb_verify_doc_new();
    cr_assert(d);
    rb_verify_run r = {.router = "r3",
                       .corpus = NULL,
                       .routes_path = "a.routes",
                       .requests_path = "a.requests",
                       .peer = true,
                       .status = RB_EFORMAT};
    snprintf(r.err.message, sizeof r.err.message, "a.routes:3: bad method");
    rb_verify_doc_add(d, &r);
    rb_verify_totals t = {1, 1, 0, 0};
    rb_buf b = {0};
    rb_error err;
    cr_assert_eq(rb_verify_doc_render(d, &t, &b, &err), RB_OK);
    cr_expect_eq(b.data[b.len - 1], '\n');
    cJSON *o = cJSON_Parse(b.data);
    cr_assert(o, "valid JSON: %s", b.data);
    cr_expect_str_eq(cJSON_GetObjectItem(o, "schema")->valuestring, "routebench-verify");
    cJSON *run = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "runs"), 0);
    cr_expect(cJSON_IsNull(cJSON_GetObjectItem(run, "corpus")));
    cr_expect_str_eq(cJSON_GetObjectItem(run, "error")->valuestring, "a.routes:3: bad method");
    cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(run, "ok")));
    cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "totals"), "failed")->valueint, 1);
    cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(o, "ok")));
    cJSON_Delete(o);
    rb_buf_free(&b);
    rb_verify_doc_free(d);
}
