/*
 * fuzz_tables.c — libFuzzer target: the routes and requests readers on
 * arbitrary bytes.  Never a crash; an error always names a line inside the
 * input; an accepted table passes the writer's check (rb_*_table_check_text)
 * and its written text reads back to the same fingerprint (and, for
 * requests, the same routes fingerprint line); a writer never writes what
 * the reader would read differently.
 */
#include "table.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_tables: %s: %s\n", what, detail);
    abort();
}

static void routes_round_trip(const rb_route_table *t)
{
    rb_error err;
    if (rb_route_table_check_text(t, &err) < 0)
        fail("an accepted route table is not writable", err.message);
    rb_buf b = {0};
    rb_route_table_text(t, "a header\nof two lines", &b);
    if (b.failed) fail("routes", "out of memory");
    rb_route_table back;
    if (rb_route_table_parse("written.routes", b.data ? b.data : "", b.len, &back, &err) < 0)
        fail("written routes do not read back", err.message);
    if (back.count != t->count ||
        rb_route_table_fingerprint(&back) != rb_route_table_fingerprint(t))
        fail("routes", "written routes read back to another fingerprint");
    rb_route_table_free(&back);
    rb_buf_free(&b);
}

static void requests_round_trip(const rb_request_table *t)
{
    rb_error err;
    if (rb_request_table_check_text(t, &err) < 0)
        fail("an accepted request table is not writable", err.message);
    rb_buf b = {0};
    rb_request_table_text(t, &b);
    if (b.failed) fail("requests", "out of memory");
    rb_request_table back;
    if (rb_request_table_parse("written.requests", b.data ? b.data : "", b.len, &back, &err) < 0)
        fail("written requests do not read back", err.message);
    if (back.count != t->count ||
        rb_request_table_fingerprint(&back) != rb_request_table_fingerprint(t) ||
        back.has_routes_fp != t->has_routes_fp || back.routes_fp != t->routes_fp)
        fail("requests", "written requests read back to another fingerprint");
    rb_request_table_free(&back);
    rb_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    size_t lines = 1;
    for (size_t i = 0; i < size; i++) lines += text[i] == '\n';

    rb_route_table routes;
    rb_error err;
    if (rb_route_table_parse("fuzz.routes", text, size, &routes, &err) == RB_OK) {
        routes_round_trip(&routes);
        rb_route_table_free(&routes);
    } else if (err.line == 0 || err.line > lines) {
        fprintf(stderr, "fuzz_tables: routes error on line %zu of %zu\n", err.line, lines);
        abort();
    }
    rb_request_table reqs;
    if (rb_request_table_parse("fuzz.requests", text, size, &reqs, &err) == RB_OK) {
        requests_round_trip(&reqs);
        rb_request_table_free(&reqs);
    } else if (err.line == 0 || err.line > lines) {
        fprintf(stderr, "fuzz_tables: requests error on line %zu of %zu\n", err.line, lines);
        abort();
    }
    return 0;
}
