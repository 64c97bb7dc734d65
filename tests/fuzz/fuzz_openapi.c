/*
 * fuzz_openapi.c — libFuzzer target: the OpenAPI importer (YAML and JSON,
 * corpus/openapi.h) on arbitrary bytes.  It must never crash or leak; an
 * import it accepts has at least one route, each a pattern the shared
 * parser takes; an import it refuses leaves no routes and a message without
 * control bytes (binary input is refused before any of it is quoted).
 */
#include "openapi.h"
#include "router_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_openapi: check failed: %s\n", #cond);                            \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rb_route_table t;
    rb_openapi_report rep;
    rb_error err;
    int rc = rb_openapi_import("fuzz", (const char *)data, size, &t, &rep, &err);
    if (rc < 0) {
        CHECK(t.count == 0);
        for (const char *p = err.message; *p; p++)
            CHECK((unsigned char)*p >= 0x20 && (unsigned char)*p != 0x7f);
        return 0;
    }
    CHECK(t.count > 0 && rep.routes == t.count);
    for (size_t i = 0; i < t.count; i++) {
        rb_pattern pat;
        CHECK(rb_pattern_parse(rb_route_pattern(&t, i), t.routes[i].len, NULL, &pat, &err) ==
              RB_OK);
        rb_pattern_free(&pat);
    }
    rb_route_table_free(&t);
    return 0;
}
