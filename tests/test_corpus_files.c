/*
 * test_corpus_files.c — what `routebench corpus` makes, as library calls:
 * a generated pair (corpus/gen_pair.h), the check's report (check_text.h),
 * profiles of files (profile_file.h) and an OpenAPI import as a routes file
 * (import_file.h).  Expected texts are written out by hand from the rules
 * in docs/corpora.md, never computed by the code under test.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check_text.h"
#include "gen_pair.h"
#include "import_file.h"
#include "profile_file.h"
#include "rb_test.h"
#include "shipped.h"

static const char *text_of(const rb_buf *b)
{
    cr_assert(!b->failed);
    return b->data ? b->data : "";
}

/* The check's text names each duplicate by its lines and ends in the verdict. */
Test(corpus_files, check_text_names_duplicates_and_ends_in_the_verdict)
{
    rb_route_table t = rbt_parse_routes("GET /a\nGET /a\nGET /u/:id\nGET /u/:name\n");
    rb_check_options opt;
    rb_check_options_init(&opt);
    rb_check_report r;
    rb_error err;
    cr_assert_eq(rb_corpus_check(&t, &opt, &r, &err), RB_OK, "%s", err.message);
    rb_check_text_options to = {3, NULL, false};
    rb_buf b = {0};
    cr_assert_eq(rb_check_text("t.routes", &t, &r, &to, &b, &err), RB_OK, "%s", err.message);
    const char *s = text_of(&b);
    cr_expect(strncmp(s, "t.routes\n  routes              4\n", 31) == 0, "%s", s);
    cr_expect(strstr(s, "  exact duplicates    1\n  line 2 GET /a repeats line 1\n") != NULL, "%s",
              s);
    cr_expect(strstr(s, "  line 4 GET /u/:name has the method and shape of line 3\n") != NULL, "%s",
              s);
    cr_expect(strstr(s, "  --min-unique 3: FAILED (2 distinct routes)\n") != NULL, "%s", s);
    cr_expect(strstr(s, "\nproblems found:") != NULL, "%s", s);
    cr_expect_eq(s[strlen(s) - 1], '\n');
    rb_buf_free(&b);
    rb_check_report_free(&r);
    rb_route_table_free(&t);
}

/* --json with --against wraps both documents; a comparison's error says
 * it came from --against. */
Test(corpus_files, check_json_with_against_wraps_both)
{
    rb_route_table t = rbt_parse_routes("GET /a\nGET /b/:id\n");
    rb_check_options opt;
    rb_check_options_init(&opt);
    rb_check_report r;
    rb_error err;
    cr_assert_eq(rb_corpus_check(&t, &opt, &r, &err), RB_OK, "%s", err.message);
    char against[4096];
    cr_assert(rb_shipped_path("github", "routes", against, sizeof against));
    rb_check_text_options to = {0, against, true};
    rb_buf b = {0};
    cr_assert_eq(rb_check_text("t.routes", &t, &r, &to, &b, &err), RB_OK, "%s", err.message);
    const char *s = text_of(&b);
    cr_expect(strncmp(s, "{\n\"check\": {", 12) == 0, "%s", s);
    cr_expect(strstr(s, ",\n\"against\": {") != NULL);
    cr_expect(strcmp(s + strlen(s) - 2, "}\n") == 0);
    rb_buf_free(&b);
    to.against = "/nonexistent/b.routes";
    cr_expect_lt(rb_check_text("t.routes", &t, &r, &to, &b, &err), 0);
    cr_expect(strncmp(err.message, "--against: ", 11) == 0, "%s", err.message);
    rb_buf_free(&b);
    rb_check_report_free(&r);
    rb_route_table_free(&t);
}

/* A generated pair's routes file opens with the command that makes it
 * again and the count and fingerprint; its requests name that fingerprint. */
Test(corpus_files, gen_pair_header_says_how_to_make_it_again)
{
    rb_gen_pair_config c = {0};
    c.g.routes = 20;
    c.g.seed = 5;
    c.g.shape = rb_gen_shape_parse("static");
    rb_reqgen_config_init(&c.q);
    c.q.count = 50;
    rb_gen_pair p;
    rb_error err;
    cr_assert_eq(rb_gen_pair_make(&c, &p, &err), RB_OK, "%s", err.message);
    const char *s = text_of(&p.routes_text);
    const char *want =
        "# routebench corpus gen --routes 20 --seed 5 --shape static --generator v2\n"
        "# 20 routes, every (method, shape) distinct; fingerprint xxh3:";
    cr_expect(strncmp(s, want, strlen(want)) == 0, "%s", s);
    char fp[64];
    snprintf(fp, sizeof fp, "# routes xxh3:%016llx  (the route table",
             (unsigned long long)rb_route_table_fingerprint(&p.routes));
    cr_expect(strncmp(text_of(&p.requests_text), fp, strlen(fp)) == 0);
    cr_expect_eq(p.reqs.count, 50);
    cr_expect_str_eq(p.what, "shape static, generator v2, seed 5");
    rb_gen_pair_free(&p);
}

/* v3 copies a routes table's tree: a profile cannot give one. */
Test(corpus_files, gen_pair_refuses_v3_from_a_profile)
{
    char prof[4096];
    snprintf(prof, sizeof prof, "%s/corpus/data/pagerduty.profile.json", RB_SOURCE_DIR);
    rb_gen_pair_config c = {0};
    c.g.routes = 50;
    c.g.seed = 1;
    c.g.generator = RB_LIKE_V3;
    c.like = prof;
    rb_reqgen_config_init(&c.q);
    rb_gen_pair p;
    rb_error err;
    cr_expect_eq(rb_gen_pair_make(&c, &p, &err), RB_EINVAL);
    cr_expect(strstr(err.message, "is a profile (counts only)") != NULL, "%s", err.message);
    rb_gen_pair_free(&p);
}

/* The requests of another table's paths: the summary names the file and
 * has no generator lines. */
Test(corpus_files, requests_from_paths_summary)
{
    rb_route_table t = rbt_parse_routes("GET /a\nPOST /a\n");
    char paths[] = "/tmp/rb_corpus_files_XXXXXX";
    int fd = mkstemp(paths);
    cr_assert(fd >= 0);
    const char *q = "GET /a 0\nDELETE /a -2\nGET /b -1\n";
    cr_assert_eq(write(fd, q, strlen(q)), (ssize_t)strlen(q));
    close(fd);
    rb_request_table reqs = {0};
    rb_reqgen_report rep;
    rb_buf text = {0}, sum = {0};
    rb_error err;
    cr_assert_eq(rb_requests_make(&t, NULL, paths, &reqs, &rep, &text, &err), RB_OK, "%s",
                 err.message);
    rb_requests_summary(&reqs, &rep, NULL, paths, "-", &sum);
    char want[256];
    snprintf(want, sizeof want,
             "3 requests (the paths of %s) -> stdout\n"
             "  EXPECTED (from linear): 1 found, 1 not found (-1), 1 method not allowed (-2)\n"
             "  fingerprint requests xxh3:",
             paths);
    cr_expect(strncmp(text_of(&sum), want, strlen(want)) == 0, "%s", text_of(&sum));
    unlink(paths);
    rb_buf_free(&text);
    rb_buf_free(&sum);
    rb_request_table_free(&reqs);
    rb_route_table_free(&t);
}

/* A profile read from an OpenAPI document says to import it instead. */
Test(corpus_files, profile_read_hints_at_openapi)
{
    char doc[4096];
    snprintf(doc, sizeof doc, "%s/corpus/data/openapi/discord.openapi.json", RB_SOURCE_DIR);
    rb_profile p;
    rb_error err;
    cr_expect_lt(rb_profile_read(doc, &p, NULL, &err), 0);
    cr_expect(strstr(err.message, "this looks like an OpenAPI document") != NULL, "%s",
              err.message);
}

/* An import into a file carries a header naming the document; to stdout
 * it has none. */
Test(corpus_files, import_header_names_the_document)
{
    char doc[4096];
    snprintf(doc, sizeof doc, "%s/corpus/data/openapi/discord.openapi.json", RB_SOURCE_DIR);
    rb_openapi_options opt = {NULL};
    rb_route_table t;
    rb_openapi_report rep;
    rb_buf with = {0}, without = {0};
    rb_error err;
    cr_assert_eq(rb_openapi_import_text(doc, &opt, true, &t, &rep, &with, &err), RB_OK, "%s",
                 err.message);
    rb_route_table_free(&t);
    cr_assert_eq(rb_openapi_import_text(doc, &opt, false, &t, &rep, &without, &err), RB_OK);
    char want[4200];
    snprintf(want, sizeof want, "# imported from %s (OpenAPI ", doc);
    cr_expect(strncmp(text_of(&with), want, strlen(want)) == 0, "%s", text_of(&with));
    cr_expect_neq(text_of(&without)[0], '#');
    cr_expect(strstr(text_of(&with), text_of(&without)) != NULL, "the same routes");
    rb_buf_free(&with);
    rb_buf_free(&without);
    rb_route_table_free(&t);
}
