/*
 * fuzz_pattern.c — libFuzzer target: the shared pattern parser on arbitrary
 * bytes.  It must never crash, and a parse it accepts must be consistent:
 * one segment per '/', offsets inside the pattern, at most 32 captures, a
 * shape no longer than the pattern allows; a parse it refuses must name an
 * offset inside the pattern (or none).  A template segment's params are its
 * captures, and the template matches the segment made of its pieces with a
 * byte it does not contain for each param, each capture that one byte.
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

/* The template segment s of p against its own pieces, one fresh byte a param. */
static void check_template(const char *p, const rb_segment *s)
{
    const char *t = p + s->offset;
    CHECK(rb__template_params(t, s->len) == s->captures && s->captures > 0);
    bool used[256] = {false};
    for (uint32_t i = 0; i < s->len; i++) used[(unsigned char)t[i]] = true;
    unsigned char fresh = 'A';
    while (used[fresh] && fresh < 'Z') fresh++;
    if (used[fresh]) return;
    char seg[4096];
    size_t n = 0;
    uint32_t want[RB_MAX_CAPTURES], k = 0;
    for (uint32_t i = 0; i < s->len && n < sizeof seg; i++) {
        if (t[i] != '{') {
            seg[n++] = t[i];
            continue;
        }
        while (t[i] != '}') i++;
        want[k++] = (uint32_t)n;
        seg[n++] = (char)fresh;
    }
    if (n >= sizeof seg) return;
    rb_span caps[RB_MAX_CAPTURES];
    CHECK(rb__template_match(t, s->len, seg, n, 0, caps, NULL));
    for (uint32_t i = 0; i < k; i++) CHECK(caps[i].offset == want[i] && caps[i].len == 1);
}

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
        CHECK(s->kind <= RB_SEG_TEMPLATE);
        CHECK(pat.ranks[i] == (s->kind == RB_SEG_TEMPLATE ? RB_SEG_PARAM : s->kind));
        if (s->kind == RB_SEG_TEMPLATE) check_template(p, s);
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
