/*
 * test_tables.c — the routes and requests file formats: what is accepted,
 * every malformed line rejected with its file name and line number, atomic
 * writes, and fingerprints that ignore comments and spacing.
 */
#include "file.h"
#include "rb_test.h"
#include "shipped.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parse_routes(const char *text, rb_route_table *t, rb_error *err)
{
    return rb_route_table_parse("t.routes", text, strlen(text), t, err);
}

static int parse_requests(const char *text, rb_request_table *t, rb_error *err)
{
    return rb_request_table_parse("t.requests", text, strlen(text), t, err);
}

Test(tables, routes_skip_comments_and_blank_lines_ids_count_route_lines)
{
    rb_route_table t;
    rb_error err;
    const char *text = "# header\n\nGET /a\n  # indented comment\r\n\t\nPOST  /b/:id\r\n* /c";
    cr_assert_eq(parse_routes(text, &t, &err), RB_OK, "%s", err.message);
    cr_assert_eq(t.count, 3u);
    cr_expect_eq(t.routes[0].method, RB_GET);
    cr_expect_eq(t.routes[0].line, 3u);
    cr_expect_eq(t.routes[1].method, RB_POST);
    cr_expect_str_eq(rb_route_pattern(&t, 1), "/b/:id");
    cr_expect_eq(t.routes[1].line, 6u);
    cr_expect_eq(t.routes[2].method, RB_ANY);
    rb_route_table_free(&t);
}

typedef struct bad_line {
    const char *text;
    size_t line;
    int code;
} bad_line;

Test(tables, malformed_route_lines_name_file_and_line)
{
    const bad_line cases[] = {
        {"GET /a\nGET\n", 2, RB_EFORMAT},            /* one field */
        {"GET /a\n\nGET /b extra\n", 3, RB_EFORMAT}, /* three fields */
        {"GOT /a\n", 1, RB_EFORMAT},                 /* unknown method */
        {"get /a\n", 1, RB_EFORMAT},                 /* methods are upper case */
        {"GET /a\nGET /b/:\n", 2, RB_EPATTERN},      /* pattern error */
        {"# c\nGET users\n", 2, RB_EPATTERN},        /* no leading slash */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rb_route_table t;
        rb_error err;
        int rc = parse_routes(cases[i].text, &t, &err);
        cr_expect_eq(rc, cases[i].code, "case %zu: %d %s", i, rc, err.message);
        cr_expect_eq(err.line, cases[i].line, "case %zu: line %zu", i, err.line);
        char want[32];
        snprintf(want, sizeof want, "t.routes:%zu:", cases[i].line);
        cr_expect(strncmp(err.message, want, strlen(want)) == 0, "case %zu: '%s'", i, err.message);
    }
}

Test(tables, pattern_error_keeps_the_byte_offset)
{
    rb_route_table t;
    rb_error err;
    cr_assert_eq(parse_routes("GET /a/{x\n", &t, &err), RB_EPATTERN);
    cr_expect_eq(err.offset, 3u);
    cr_expect_eq(err.line, 1u);
}

/* Regression 136: a routes line quoted its method and pattern raw and
 * first ("unknown method 'G<ESC>T'"; "pattern '<60 bytes>': reason"), so an
 * ESC byte reached the terminal and a long pattern pushed the reason back.
 * Now the reason comes first and the value last, escaped, 40 bytes. */
Test(tables, regression_136_a_line_error_shows_the_reason_first_and_no_raw_byte)
{
    static const struct {
        const char *text, *starts, *ends;
    } cases[] = {
        {"G\x1bT /a\n", "t.routes:1: unknown method \"G\\x1bT\"", "\"G\\x1bT\""},
        {"GET /a\x1b[31m\n", "t.routes:1: ", ", in the pattern \"/a\\x1b[31m\""},
        {"GET /aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa{x\n",
         "t.routes:1: ", "aaaa...\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rb_route_table t;
        rb_error err;
        cr_expect_lt(parse_routes(cases[i].text, &t, &err), 0, "case %zu", i);
        for (const char *p = err.message; *p; p++)
            cr_expect((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f,
                      "case %zu: byte 0x%02x in the message", i, (unsigned char)*p);
        cr_expect(strncmp(err.message, cases[i].starts, strlen(cases[i].starts)) == 0,
                  "case %zu: '%s'", i, err.message);
        size_t n = strlen(err.message), e = strlen(cases[i].ends);
        cr_expect(n >= e && strcmp(err.message + n - e, cases[i].ends) == 0,
                  "case %zu: '%s' does not end '%s'", i, err.message, cases[i].ends);
    }
}

Test(tables, requests_parse_and_malformed_lines_fail)
{
    rb_request_table t;
    rb_error err;
    cr_assert_eq(parse_requests("GET /a 0\n# x\nPUT /b -1\nDELETE /c -2\n", &t, &err), RB_OK);
    cr_assert_eq(t.count, 3u);
    cr_expect_eq(t.reqs[1].expected, -1);
    cr_expect_eq(t.reqs[2].expected, -2);
    cr_expect_eq(t.reqs[2].line, 4u);
    rb_request_table_free(&t);

    const bad_line cases[] = {
        {"GET /a\n", 1, RB_EFORMAT},           /* missing EXPECTED */
        {"GET /a 1 2\n", 1, RB_EFORMAT},       /* extra field */
        {"GET /a -3\n", 1, RB_EFORMAT},        /* below -2 */
        {"GET /a 1x\n", 1, RB_EFORMAT},        /* not a number */
        {"GET /a 0\n* /b 0\n", 2, RB_EFORMAT}, /* * is not a request method */
        {"GET /a 0\nFOO /b 0\n", 2, RB_EFORMAT},
        {"GET /a 99999999999\n", 1, RB_EFORMAT}, /* out of range */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = parse_requests(cases[i].text, &t, &err);
        cr_expect_eq(rc, cases[i].code, "case %zu: %s", i, err.message);
        cr_expect_eq(err.line, cases[i].line, "case %zu: line %zu", i, err.line);
    }
}

Test(tables, missing_file_is_an_io_error_naming_it)
{
    rb_route_table t;
    rb_error err;
    cr_expect_eq(rb_route_table_read("/nonexistent/x.routes", &t, &err), RB_EIO);
    cr_expect(strstr(err.message, "/nonexistent/x.routes") != NULL, "%s", err.message);
}

Test(tables, write_then_read_round_trips_atomically)
{
    rb_route_table t;
    rb_error err;
    cr_assert_eq(parse_routes("GET /a\n* /b/{id}\n", &t, &err), RB_OK);
    char dir[] = "/tmp/rbtest.XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/out.routes", dir);
    cr_assert_eq(rb_route_table_write(path, &t, "made by a test\nsecond line", &err), RB_OK);
    char *data;
    size_t len;
    cr_assert_eq(rb_file_read(path, &data, &len, &err), RB_OK);
    cr_expect_str_eq(data, "# made by a test\n# second line\nGET /a\n* /b/{id}\n");
    free(data);
    rb_route_table back;
    cr_assert_eq(rb_route_table_read(path, &back, &err), RB_OK);
    cr_expect_eq(rb_route_table_fingerprint(&back), rb_route_table_fingerprint(&t));
    /* a write into a missing directory fails and leaves nothing behind */
    char bad[96];
    snprintf(bad, sizeof bad, "%s/missing/out.routes", dir);
    cr_expect_eq(rb_route_table_write(bad, &t, NULL, &err), RB_EIO);
    unlink(path);
    cr_expect_eq(rmdir(dir), 0, "no temporary files left behind");
    rb_route_table_free(&t);
    rb_route_table_free(&back);
}

Test(tables, fingerprint_ignores_comments_and_spacing_but_not_content)
{
    rb_route_table a, b, c;
    rb_error err;
    cr_assert_eq(parse_routes("GET /a\nPOST /b\n", &a, &err), RB_OK);
    cr_assert_eq(parse_routes("# x\nGET   /a\r\n\nPOST\t/b", &b, &err), RB_OK);
    cr_assert_eq(parse_routes("POST /b\nGET /a\n", &c, &err), RB_OK);
    cr_expect_eq(rb_route_table_fingerprint(&a), rb_route_table_fingerprint(&b));
    cr_expect_neq(rb_route_table_fingerprint(&a), rb_route_table_fingerprint(&c),
                  "order is part of the table (route ids)");
    rb_route_table_free(&a);
    rb_route_table_free(&b);
    rb_route_table_free(&c);
}

Test(tables, shipped_corpora_load)
{
    const char *names[] = {"github",  "static",    "gplus",  "parse",
                           "discord", "semantics", "twilio", "pagerduty-like"};
    const size_t counts[] = {203, 157, 13, 26, 242, 42, 197, 465};
    cr_assert_eq(rb_shipped_count(), 8u, "a corpus was added: give its route count here");
    for (size_t i = 0; i < 8; i++) {
        cr_expect_str_eq(rb_shipped_name(i), names[i]);
        char path[4096];
        rb_route_table t;
        rb_error err;
        cr_assert_eq(
            rb_route_table_read(rbt_data_path(names[i], "routes", path, sizeof path), &t, &err),
            RB_OK, "%s", err.message);
        cr_expect_eq(t.count, counts[i], "%s has %zu routes", names[i], t.count);
        rb_route_table_free(&t);
    }
}

/* Rule: the registry of shipped corpora (corpus/shipped.c), which the tests
 * loop over, names every table in corpus/data and nothing else, so a new
 * corpus cannot be skipped silently. */
Test(tables, shipped_registry_lists_every_table_in_corpus_data)
{
    DIR *d = opendir(RB_SOURCE_DIR "/corpus/data");
    cr_assert_not_null(d);
    size_t files = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (n <= 7 || strcmp(e->d_name + n - 7, ".routes") != 0) continue;
        files++;
        bool listed = false;
        for (size_t i = 0; i < rb_shipped_count(); i++)
            listed |= strlen(rb_shipped_name(i)) == n - 7 &&
                      memcmp(rb_shipped_name(i), e->d_name, n - 7) == 0;
        cr_expect(listed, "corpus/data/%s is not in corpus/shipped.c", e->d_name);
    }
    closedir(d);
    cr_expect_eq(files, rb_shipped_count(), "the registry names tables that are not there");
    for (size_t i = 0; i < rb_shipped_count(); i++) {
        char path[4096];
        FILE *f = fopen(rbt_data_path(rb_shipped_name(i), "requests", path, sizeof path), "r");
        cr_expect_not_null(f, "%s has no requests file", rb_shipped_name(i));
        if (f) fclose(f);
    }
}
