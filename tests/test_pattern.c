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
    const char *kinds; /* one digit per segment: its kind (rb_seg_kind) */
    const char *shape;
    unsigned literal;
    unsigned captures;
    const char *ranks; /* one digit per segment: its rank; NULL: the kinds */
} valid_case;

static const valid_case valid[] = {
    {"/", "0", "/", 0, 0, NULL},
    {"/users", "0", "/users", 5, 0, NULL},
    {"/users/", "00", "/users/", 5, 0, NULL},
    {"/users/:id", "01", "/users/{}", 5, 1, NULL},
    {"/users/{id}", "01", "/users/{}", 5, 1, NULL},
    {"/files/*rest", "04", "/files/{*}", 5, 1, NULL},
    {"/files/{*rest}", "04", "/files/{*}", 5, 1, NULL},
    {"/img/*.png", "02", "/img/*.png", 7, 1, NULL},
    {"/img/*", "02", "/img/*", 3, 1, NULL},
    {"/f/img-??.png", "02", "/f/img-??.png", 9, 1, NULL},
    {"/f/[a-c]*", "02", "/f/[a-c]*", 1, 1, NULL},
    {"/f/[!a-c]*.txt", "02", "/f/[!a-c]*.txt", 5, 1, NULL},
    {"/v2/**/manifests/:ref", "0301", "/v2/**/manifests/{}", 11, 2, NULL},
    {"/a/*1x", "02", "/a/*1x", 3, 1, NULL},   /* '*' + non-identifier: a glob */
    {"/a/*x.y", "02", "/a/*x.y", 4, 1, NULL}, /* not exactly *identifier: a glob */
    {"/a/b:c", "00", "/a/b:c", 4, 0, NULL},   /* ':' inside a segment is a byte */
    {"//x", "00", "//x", 1, 0, NULL},         /* empty segment */
    {"/a/a**b", "02", "/a/a**b", 3, 1, NULL}, /* '**' inside a segment: a glob */
    {"/_a9/:_Z9", "01", "/_a9/{}", 3, 1, NULL},
    {"/x/]", "00", "/x/]", 2, 0, NULL}, /* a lone ']' is a byte */
    /* templates (kind 5) rank as params; their literal bytes count */
    {"/f/img-{id}.png", "05", "/f/img-{}.png", 9, 1, "01"},
    {"/f/{sid}.json", "05", "/f/{}.json", 6, 1, "01"},
    {"/v{major}.{minor}", "5", "/v{}.{}", 2, 2, "1"},
    {"/{from}-{to}", "5", "/{}-{}", 1, 2, "1"},
    {"/a/x{id}", "05", "/a/x{}", 2, 1, "01"},
    {"/a/{a}:{b}", "05", "/a/{}:{}", 2, 2, "01"}, /* ':' inside a template is a byte */
    {"/a/:{id}", "05", "/a/:{}", 2, 1, "01"},
    {"/a/{a}.{b}/{c}", "051", "/a/{}.{}/{}", 2, 3, "011"},
    {"/a/{a}-x-{b}/*rest", "054", "/a/{}-x-{}/{*}", 4, 3, "014"},
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
            const char *ranks = c->ranks ? c->ranks : c->kinds;
            cr_expect_eq(p.ranks[k], ranks[k] - '0', "%s: rank %u", c->pattern, k);
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
    {"/a/x{id", 0, RB_EPATTERN, 4},       /* unbalanced '{' in a template */
    {"/a/{a}{b}", 0, RB_EPATTERN, 6},     /* two params with no byte between */
    {"/a/{a}x{b}{c}", 0, RB_EPATTERN, 10},
    {"/a/{id}*.png", 0, RB_EPATTERN, 7}, /* a template with glob syntax */
    {"/a/*{id}", 0, RB_EPATTERN, 3},
    {"/a/x{i}d}", 0, RB_EPATTERN, 8},    /* a '}' that closes nothing */
    {"/a/x{*rest}", 0, RB_EPATTERN, 5},  /* a catch-all inside a segment */
    {"/a/x{}", 0, RB_EPATTERN, 5},       /* empty name in a template */
    {"/a/x{1}", 0, RB_EPATTERN, 5},      /* bad name in a template */
    {"/a/x{a{b}", 0, RB_EPATTERN, 4},    /* '{' opened inside a param */
    {"/a/{a}.{a}", 0, RB_EPATTERN, 8},   /* duplicate name within a template */
    {"/:a/{a}.json", 0, RB_EPATTERN, 5}, /* duplicate name across segments */
    {"/a/{a}.{b}/{*b}", 0, RB_EPATTERN, 13},
    {"/a/[abc", 0, RB_EPATTERN, 3},  /* unbalanced '[' */
    {"/a/x[]", 0, RB_EPATTERN, 4},   /* empty set */
    {"/a/[z-a]", 0, RB_EPATTERN, 4}, /* reversed range */
    {"/a\0b", 4, RB_EPATTERN, 2},    /* NUL byte */
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

/* Rule: every param of a template is a capture; the error names the
 * param that would be the 33rd. */
Test(pattern, template_params_count_toward_32_captures)
{
    char pat[512];
    size_t n = 0;
    for (int i = 0; i < 30; i++) n += (size_t)snprintf(pat + n, sizeof pat - n, "/:p%d", i);
    /* 30 params, then a template of 3: "{a}.{b}.{c}", whose {c} is the 33rd */
    size_t seg = n + 1;
    n += (size_t)snprintf(pat + n, sizeof pat - n, "/{a}.{b}.{c}");
    rb_pattern p;
    rb_error err;
    cr_assert_eq(rb_pattern_parse(pat, n, NULL, &p, &err), RB_EPATTERN);
    cr_expect_eq(err.offset, seg + 8, "%s", err.message); /* "{a}.{b}." is 8 bytes */
    /* one fewer ({a}.{b}) is 32 captures */
    n = seg - 1 + (size_t)snprintf(pat + seg - 1, sizeof pat - seg + 1, "/{a}.{b}");
    cr_assert_eq(rb_pattern_parse(pat, n, NULL, &p, &err), RB_OK, "%s", err.message);
    cr_expect_eq(p.ncaptures, 32u);
    cr_expect_eq(p.segs[30].captures, 2u);
    cr_expect_eq(p.features, RB_FEAT_PARAMS | RB_FEAT_TEMPLATE);
    rb_pattern_free(&p);
}

/* Rule: two template routes whose params differ only in name have one
 * shape (the front end refuses the second under one method). */
Test(pattern, template_names_are_erased_from_the_shape)
{
    rb_pattern a, b;
    cr_assert_eq(rb_pattern_parse("/i/img-{a}.png", 14, NULL, &a, NULL), RB_OK);
    cr_assert_eq(rb_pattern_parse("/i/img-{bb}.png", 15, NULL, &b, NULL), RB_OK);
    cr_expect_eq(a.shape_len, b.shape_len);
    cr_expect(memcmp(a.shape, b.shape, a.shape_len) == 0, "'%s' vs '%s'", a.shape, b.shape);
    cr_expect_str_eq(a.shape, "/i/img-{}.png");
    cr_expect(a.segs[1].text_len == 11 && memcmp(a.segs[1].text, "img-{a}.png", 11) == 0,
              "a template's text is the whole segment");
    rb_pattern_free(&a);
    rb_pattern_free(&b);
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

/* ---- template segments ---------------------------------------------------- */

/* Captures of `tmpl` on `seg` as "a|b|c" (the spans' bytes), or "-" for no
 * match, through rb__template_match. */
static void template_answer(const char *tmpl, const char *seg, char *out, size_t cap)
{
    rb_span caps[RB_MAX_CAPTURES];
    size_t n = strlen(seg);
    uint32_t base = 100; /* spans are offsets base + position */
    if (!rb__template_match(tmpl, strlen(tmpl), seg, n, base, caps, NULL)) {
        snprintf(out, cap, "-");
        return;
    }
    size_t w = 0;
    out[0] = '\0';
    for (uint32_t i = 0; i < rb__template_params(tmpl, strlen(tmpl)); i++) {
        cr_assert(caps[i].offset >= base && caps[i].offset - base + caps[i].len <= n);
        w += (size_t)snprintf(out + w, cap - w, "%s%.*s", i ? "|" : "", (int)caps[i].len,
                              seg + caps[i].offset - base);
    }
}

/* The rule stated as a search, independently of the greedy pass: try
 * every length of param i (1, 2, ... in that order) after its piece, the
 * last one ending exactly at the final piece; the first split found is the
 * leftmost-shortest.  pieces[0..k] are the literal pieces. */
static bool brute_split(const char *seg, size_t n, size_t pos, const char *const *pieces, int k,
                        int i, size_t *lens)
{
    size_t pl = strlen(pieces[i]);
    if (i == 0) { /* the first piece starts the segment */
        if (n < pl || memcmp(seg, pieces[0], pl) != 0) return false;
        return brute_split(seg, n, pl, pieces, k, 1, lens);
    }
    for (size_t len = 1; pos + len <= n; len++) {
        size_t after = pos + len;
        if (i == k) { /* the last param: the last piece must end the segment exactly */
            if (n - after == pl && memcmp(seg + after, pieces[k], pl) == 0) {
                lens[i - 1] = len;
                return true;
            }
            continue;
        }
        if (n - after >= pl && memcmp(seg + after, pieces[i], pl) == 0) {
            lens[i - 1] = len;
            if (brute_split(seg, n, after + pl, pieces, k, i + 1, lens)) return true;
        }
    }
    return false;
}

/* Rule: each param takes as few bytes as it can, left to right; the
 * greedy matcher equals a search over every split, for every segment of up
 * to 6 bytes over {a . - x} and templates of 1-3 params whose pieces
 * overlap the params' bytes. */
Test(pattern, template_matcher_equals_leftmost_shortest_over_every_split, .timeout = 120)
{
    static const char *const piece_set[] = {"", ".", "a", "..", "-x-", "a."};
    enum { NP = 6, MAXLEN = 6 };
    const char alphabet[] = "a.-x";
    size_t checked = 0, matched = 0;
    for (int k = 1; k <= 3; k++) {
        int total = 1;
        for (int i = 0; i <= k; i++) total *= NP;
        for (int code = 0; code < total; code++) {
            const char *pieces[4];
            int c = code;
            bool ok = true;
            for (int i = 0; i <= k; i++, c /= NP) {
                pieces[i] = piece_set[c % NP];
                if (i > 0 && i < k && !pieces[i][0]) ok = false; /* params apart by 1+ bytes */
            }
            if (!ok) continue;
            char tmpl[64];
            size_t t = 0;
            for (int i = 0; i <= k; i++)
                t += (size_t)snprintf(tmpl + t, sizeof tmpl - t, "%s%s", pieces[i],
                                      i < k ? "{p}" : "");
            for (int len = 0; len <= MAXLEN; len++) {
                int count = 1;
                for (int i = 0; i < len; i++) count *= 4;
                for (int sc = 0; sc < count; sc++) {
                    char seg[MAXLEN + 1];
                    for (int i = 0, v = sc; i < len; i++, v /= 4) seg[i] = alphabet[v % 4];
                    seg[len] = '\0';
                    size_t lens[3];
                    char want[64] = "-", got[64];
                    if (brute_split(seg, (size_t)len, 0, pieces, k, 0, lens)) {
                        size_t w = 0, pos = strlen(pieces[0]);
                        for (int i = 0; i < k; i++) {
                            w += (size_t)snprintf(want + w, sizeof want - w, "%s%.*s", i ? "|" : "",
                                                  (int)lens[i], seg + pos);
                            pos += lens[i] + strlen(pieces[i + 1]);
                        }
                        matched++;
                    }
                    template_answer(tmpl, seg, got, sizeof got);
                    cr_assert_str_eq(got, want, "template '%s' on '%s'", tmpl, seg);
                    checked++;
                }
            }
        }
    }
    cr_expect_gt(matched, 1000u, "%zu of %zu matched", matched, checked);
}

/* Rule: the hard cases of the issue, worked out by hand. */
Test(pattern, template_matcher_hard_cases)
{
    struct {
        const char *tmpl, *seg, *want;
    } cases[] = {
        {"{a}.{b}", "..x", ".|x"}, /* a takes 1+ bytes: the first '.' is a's */
        {"{a}-x-{b}", "1-x-2-x-3", "1|2-x-3"},
        {"{name}.{ext}", "archive.tar.gz", "archive|tar.gz"},
        {"img-{id}.png", "img-3.png", "3"},
        {"img-{id}.png", "img-.png", "-"}, /* the param needs 1+ bytes */
        {"img-{id}.png", "img-.png.png", ".png"},
        {"{x}.png", "img-3.png", "img-3"},
        {"{sid}.json", ".json", "-"},
        {"{sid}.json", "a.json.json", "a.json"},
        {"v{major}.{minor}", "v1.2", "1|2"},
        {"v{major}.{minor}", "v1.", "-"},
        {"v{major}.{minor}", "v.1", "-"},
        {"v{major}.{minor}", "v..1", ".|1"},
        {"{from}-{to}", "a-b-c", "a|b-c"},
        {"{from}-{to}", "-a", "-"},
        {"{from}-{to}", "a-", "-"},
        {"{a}aa{b}", "aaaa", "a|a"}, /* the piece overlaps: a = "a", then "aa", b = "a" */
        {"{a}aa{b}", "aaa", "-"},
        {"x{a}x", "xx", "-"},
        {"x{a}x", "xxx", "x"},
        {"{a}.{b}.{c}", "1.2.3.4", "1|2|3.4"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char got[64];
        template_answer(cases[i].tmpl, cases[i].seg, got, sizeof got);
        cr_expect_str_eq(got, cases[i].want, "'%s' on '%s'", cases[i].tmpl, cases[i].seg);
    }
    /* the shape of a template (names erased) matches the same way */
    char got[64];
    template_answer("{}-x-{}", "1-x-2-x-3", got, sizeof got);
    cr_expect_str_eq(got, "1|2-x-3");
}

/* Rule: one left-to-right pass: at most (template + 1) x (segment + 1)
 * steps, on inputs built to make a backtracking matcher quadratic or worse. */
Test(pattern, template_matcher_cost_is_bounded_by_product)
{
    static char seg[4096];
    memset(seg, 'a', sizeof seg);
    const char *tmpls[] = {"{a}aaaab{b}", "{a}a{b}a{c}a{d}b", "{a}b", "b{a}"};
    for (size_t i = 0; i < sizeof tmpls / sizeof tmpls[0]; i++) {
        rb_span caps[8];
        uint64_t steps = 0;
        size_t t = strlen(tmpls[i]);
        cr_expect_not(rb__template_match(tmpls[i], t, seg, sizeof seg, 0, caps, &steps));
        cr_expect_leq(steps, (uint64_t)(t + 1) * (sizeof seg + 1), "'%s': steps %llu", tmpls[i],
                      (unsigned long long)steps);
    }
    /* a template with no middle piece costs its two ends, whatever the segment */
    rb_span caps[1];
    uint64_t steps = 0;
    cr_expect(rb__template_match("{id}.json", 9, seg, sizeof seg - 5, 0, caps, &steps) == false);
    memcpy(seg + sizeof seg - 5, ".json", 5);
    cr_expect(rb__template_match("{id}.json", 9, seg, sizeof seg, 0, caps, &steps));
    cr_expect_leq(steps, 2u * (9 + 1), "steps %llu", (unsigned long long)steps);
}
