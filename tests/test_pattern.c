/*
 * test_pattern.c — the shared pattern parser: valid patterns with their
 * segments, shape and priority-key parts; malformed ones with the error
 * code and the byte offset it must name.  Expectations are written by hand
 * from docs/design.md's route semantics.
 */
#include "rb_test.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

typedef struct valid_case {
    const char *pattern;
    const char *kinds; /* one digit per segment: its rank */
    const char *shape;
    unsigned literal;
    unsigned captures;
} valid_case;

static const valid_case valid[] = {
    {"/", "0", "/", 0, 0},
    {"/users", "0", "/users", 5, 0},
    {"/users/", "00", "/users/", 5, 0},
    {"/users/:id", "01", "/users/{}", 5, 1},
    {"/users/{id}", "01", "/users/{}", 5, 1},
    {"/files/*rest", "04", "/files/{*}", 5, 1},
    {"/files/{*rest}", "04", "/files/{*}", 5, 1},
    {"/img/*.png", "02", "/img/*.png", 7, 1},
    {"/img/*", "02", "/img/*", 3, 1},
    {"/f/img-??.png", "02", "/f/img-??.png", 9, 1},
    {"/f/[a-c]*", "02", "/f/[a-c]*", 1, 1},
    {"/f/[!a-c]*.txt", "02", "/f/[!a-c]*.txt", 5, 1},
    {"/v2/**/manifests/:ref", "0301", "/v2/**/manifests/{}", 11, 2},
    {"/a/*1x", "02", "/a/*1x", 3, 1},   /* '*' + non-identifier: a glob */
    {"/a/*x.y", "02", "/a/*x.y", 4, 1}, /* not exactly *identifier: a glob */
    {"/a/b:c", "00", "/a/b:c", 4, 0},   /* ':' inside a segment is a byte */
    {"//x", "00", "//x", 1, 0},         /* empty segment */
    {"/a/a**b", "02", "/a/a**b", 3, 1}, /* '**' inside a segment: a glob */
    {"/_a9/:_Z9", "01", "/_a9/{}", 3, 1},
    {"/x/]", "00", "/x/]", 2, 0}, /* a lone ']' is a byte */
};

Test(pattern, valid_patterns_parse_into_segments_shape_and_key)
{
    for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++) {
        const valid_case *c = &valid[i];
        rb_pattern p;
        rb_error err;
        int rc = rb_pattern_parse(c->pattern, strlen(c->pattern), NULL, &p, &err);
        cr_assert_eq(rc, RB_OK, "%s: %s", c->pattern, err.message);
        cr_expect_eq(p.nsegs, strlen(c->kinds), "%s: segments", c->pattern);
        for (uint32_t k = 0; k < p.nsegs && k < strlen(c->kinds); k++) {
            cr_expect_eq(p.segs[k].kind, c->kinds[k] - '0', "%s: kind of segment %u", c->pattern,
                         k);
            cr_expect_eq(p.ranks[k], p.segs[k].kind, "%s: rank %u", c->pattern, k);
        }
        cr_expect_eq(p.shape_len, strlen(c->shape), "%s: shape length", c->pattern);
        cr_expect(memcmp(p.shape, c->shape, strlen(c->shape)) == 0, "%s: shape '%s' != '%s'",
                  c->pattern, p.shape, c->shape);
        cr_expect_eq(p.literal_bytes, c->literal, "%s: literal bytes %u", c->pattern,
                     p.literal_bytes);
        cr_expect_eq(p.ncaptures, c->captures, "%s: captures", c->pattern);
        rb_pattern_free(&p);
    }
}

Test(pattern, capture_names_exclude_sigils_and_braces)
{
    rb_pattern p;
    const char *pat = "/{owner}/:repo/{*path}";
    cr_assert_eq(rb_pattern_parse(pat, strlen(pat), NULL, &p, NULL), RB_OK);
    cr_expect(p.segs[0].text_len == 5 && memcmp(p.segs[0].text, "owner", 5) == 0);
    cr_expect(p.segs[1].text_len == 4 && memcmp(p.segs[1].text, "repo", 4) == 0);
    cr_expect(p.segs[2].text_len == 4 && memcmp(p.segs[2].text, "path", 4) == 0);
    cr_expect_eq(p.segs[1].offset, 9u);
    cr_expect_eq(p.features, RB_FEAT_PARAMS | RB_FEAT_CATCHALL);
    rb_pattern_free(&p);
}

typedef struct invalid_case {
    const char *pattern;
    size_t len; /* 0: strlen */
    int code;
    size_t offset;
} invalid_case;

static const invalid_case invalid[] = {
    {"", 0, RB_EPATTERN, 0},              /* does not start with '/' */
    {"users", 0, RB_EPATTERN, 0},         /* does not start with '/' */
    {"/users/:", 0, RB_EPATTERN, 8},      /* empty name */
    {"/users/{}", 0, RB_EPATTERN, 8},     /* empty name */
    {"/users/{*}", 0, RB_EPATTERN, 9},    /* empty catch-all name */
    {"/users/:1d", 0, RB_EPATTERN, 8},    /* name starts with a digit */
    {"/users/:i-d", 0, RB_EPATTERN, 9},   /* bad character in a name */
    {"/a/:id/b/:id", 0, RB_EPATTERN, 10}, /* duplicate name */
    {"/a/{x}/{*x}", 0, RB_EPATTERN, 9},   /* duplicate name across kinds */
    {"/a/*rest/b", 0, RB_EPATTERN, 3},    /* catch-all not last */
    {"/a/{id", 0, RB_EPATTERN, 3},        /* unbalanced '{' */
    {"/a/id}", 0, RB_EPATTERN, 5},        /* unbalanced '}' */
    {"/a/x{id}", 0, RB_EPATTERN, 4},      /* '{' inside a segment */
    {"/a/[abc", 0, RB_EPATTERN, 3},       /* unbalanced '[' */
    {"/a/x[]", 0, RB_EPATTERN, 4},        /* empty set */
    {"/a/[z-a]", 0, RB_EPATTERN, 4},      /* reversed range */
    {"/a\0b", 4, RB_EPATTERN, 2},         /* NUL byte */
};

Test(pattern, malformed_patterns_name_the_byte_offset)
{
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        const invalid_case *c = &invalid[i];
        size_t len = c->len ? c->len : strlen(c->pattern);
        rb_pattern p;
        rb_error err;
        memset(&err, 0, sizeof err);
        int rc = rb_pattern_parse(c->pattern, len, NULL, &p, &err);
        cr_expect_eq(rc, c->code, "case %zu '%s': code %d (%s)", i, c->pattern, rc, err.message);
        cr_expect_eq(err.offset, c->offset, "case %zu '%s': offset %zu, want %zu (%s)", i,
                     c->pattern, err.offset, c->offset, err.message);
        cr_expect(strlen(err.message) > 0, "case %zu: a message", i);
        if (rc == RB_OK) rb_pattern_free(&p);
    }
}

Test(pattern, more_than_32_captures_is_refused_at_the_33rd)
{
    char pat[512];
    size_t n = 0;
    for (int i = 0; i < 33; i++) n += (size_t)snprintf(pat + n, sizeof pat - n, "/:p%d", i);
    rb_pattern p;
    rb_error err;
    cr_assert_eq(rb_pattern_parse(pat, n, NULL, &p, &err), RB_EPATTERN);
    /* "/:p0" .. "/:p9" are 4 bytes, "/:p10".."/:p31" 5 bytes: the 33rd starts at 150 */
    cr_expect_eq(err.offset, 10 * 4 + 22 * 5 + 1u, "%s", err.message);
    cr_assert_eq(rb_pattern_parse(pat, 150, NULL, &p, &err), RB_OK, "32 captures are fine");
    cr_expect_eq(p.ncaptures, 32u);
    rb_pattern_free(&p);
}

Test(pattern, priority_key_orders_ranks_then_method_then_literal_then_id)
{
    const uint8_t s0[] = {0}, s00[] = {0, 0}, s01[] = {0, 1}, s03[] = {0, 3};
    rb_priority a = {s00, 2, false, 5, 9}, b = {s01, 2, false, 9, 0};
    cr_expect_lt(rb_priority_compare(&a, &b), 0, "static before param");
    rb_priority c = {s0, 1, false, 1, 9}, d = {s03, 2, false, 1, 0};
    cr_expect_lt(rb_priority_compare(&c, &d), 0, "a proper prefix first");
    rb_priority e = {s01, 2, false, 1, 9}, f = {s01, 2, true, 9, 0};
    cr_expect_lt(rb_priority_compare(&e, &f), 0, "a specific method before *");
    rb_priority g = {s01, 2, true, 4, 9}, h = {s01, 2, true, 3, 0};
    cr_expect_lt(rb_priority_compare(&g, &h), 0, "more literal bytes");
    rb_priority i = {s01, 2, true, 3, 1}, j = {s01, 2, true, 3, 2};
    cr_expect_lt(rb_priority_compare(&i, &j), 0, "lower id");
    cr_expect_eq(rb_priority_compare(&i, &i), 0);
    cr_expect_gt(rb_priority_compare(&j, &i), 0);
}

Test(pattern, glob_segment_matcher)
{
    struct {
        const char *glob, *seg;
        bool match;
    } cases[] = {
        {"*", "", true},
        {"*", "abc", true},
        {"*.png", ".png", true},
        {"*.png", "a.png", true},
        {"*.png", "a.pngx", false},
        {"img-??", "img-01", true},
        {"img-??", "img-1", false},
        {"[a-c]*", "b", true},
        {"[a-c]*", "d", false},
        {"[!a-c]*", "d", true},
        {"[!a-c]*", "a", false},
        {"[abc]", "c", true},
        {"[a-]", "-", true},
        {"a*b*c", "aXbYc", true},
        {"a*b*c", "aXbY", false},
        {"*a*a*b", "aaaa", false},
        {"x", "", false},
        {"", "", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool got = rb_glob_segment_match(cases[i].glob, strlen(cases[i].glob), cases[i].seg,
                                         strlen(cases[i].seg), NULL);
        cr_expect_eq(got, cases[i].match, "'%s' vs '%s'", cases[i].glob, cases[i].seg);
    }
}

Test(pattern, glob_segment_matcher_cost_is_bounded_by_product)
{
    /* '*a*a*a*a*b' against 4 KiB of 'a': no match, and the single
     * backtrack point keeps the work within len(glob) * len(seg). */
    static char seg[4096];
    memset(seg, 'a', sizeof seg);
    const char *glob = "*a*a*a*a*b";
    uint64_t steps = 0;
    cr_expect_not(rb_glob_segment_match(glob, strlen(glob), seg, sizeof seg, &steps));
    cr_expect_leq(steps, (uint64_t)(strlen(glob) + 1) * (sizeof seg + 1), "steps %llu",
                  (unsigned long long)steps);
}
