/*
 * fuzz_pattern.c — libFuzzer target: the shared pattern parser on arbitrary
 * bytes.  It must never crash, and a parse it accepts must be consistent:
 * one segment per '/', offsets inside the pattern, at most 32 captures, a
 * shape no longer than the pattern allows; a parse it refuses must name an
 * offset inside the pattern (or none).
 */
#include "router_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_pattern: check failed: %s\n", #cond);                            \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data;
    rb_pattern pat;
    rb_error err;
    int rc = rb_pattern_parse(p, size, NULL, &pat, &err);
    if (rc < 0) {
        CHECK(rc == RB_EPATTERN || rc == RB_ELIMIT);
        CHECK(err.offset == RB_NO_OFFSET ||
              err.offset <= size); /* size: "the name that should follow" */
        return 0;
    }
    uint32_t slashes = 0, captures = 0;
    for (size_t i = 0; i < size; i++) slashes += p[i] == '/';
    CHECK(pat.nsegs == slashes);
    for (uint32_t i = 0; i < pat.nsegs; i++) {
        const rb_segment *s = &pat.segs[i];
        CHECK(s->offset + s->len <= size);
        CHECK(p[s->offset - 1] == '/');
        CHECK(s->kind <= RB_SEG_CATCHALL);
        CHECK(s->kind != RB_SEG_CATCHALL || i + 1 == pat.nsegs);
        CHECK(memchr(p + s->offset, '/', s->len) == NULL);
        captures += s->captures;
    }
    CHECK(captures == pat.ncaptures && captures <= RB_MAX_CAPTURES);
    CHECK(pat.shape_len <= size + 3u * pat.nsegs);
    CHECK(pat.literal_bytes <= size);
    rb_pattern_free(&pat);
    return 0;
}
