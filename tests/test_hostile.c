/*
 * test_hostile.c — hostile and large input through every registered router:
 * every answer is defined (equal to linear's), nothing crashes or reads out
 * of bounds (the ASan build checks), long inputs finish.  Patterns that are
 * huge or malformed get errors with offsets.
 */
#include "rb_test.h"
#include "verify.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const table[] = {
    "GET /",       "GET /a",          "GET /a/:id",       "GET /a/:id/b",
    "GET /a%2Fb",  "GET /s/*rest",    "* /x/:p/:q",       "GET /e/",
    "POST /a/:id", "GET /u/\xff\xfe", "GET /long/:v/end", "GET /deep/*rest",
};
#define NTABLE (sizeof table / sizeof table[0])

/* Look path up in every router, beside linear given the routes it
 * accepted (a router may refuse features it lacks), and compare. */
static void all_agree(const char *path, size_t len, const char *what)
{
    for (size_t i = 0; i < rb_registry_count(); i++) {
        const rb_router_ops *ops = rb_registry_at(i);
        char label[200];
        snprintf(label, sizeof label, "%s on %s", rb_ops_name(ops), what);
        rbt_pair p;
        rbt_pair_init(&p, ops, NULL, label);
        for (size_t k = 0; k < NTABLE; k++) {
            const char *sp = strchr(table[k], ' ');
            int m = rb_method_parse(table[k], (size_t)(sp - table[k]));
            int rc = rbt_pair_add(&p, m, sp + 1, strlen(sp + 1), (uint32_t)k);
            cr_assert(rc == RB_OK || rc == RB_EUNSUPPORTED, "%s: %s gives %d", label, table[k], rc);
        }
        rbt_pair_build(&p);
        /* a peer only has to survive (the ASan build checks); its answers are
         * measured, not held to ours */
        if (rb_ops_features(ops) & RB_FEAT_PEER) {
            rb_match m;
            rbt_lookup_exact(p.r, RB_GET, path, len, &m);
        } else {
            rbt_pair_lookup(&p, RB_GET, path, len);
        }
        rbt_pair_free(&p);
    }
}

Test(hostile, odd_paths_have_defined_answers)
{
    struct {
        const char *path;
        size_t len;
        const char *what;
    } cases[] = {
        {"", 0, "empty path"},
        {"a", 1, "no leading slash"},
        {"a/b", 3, "relative path"},
        {"/a\0b", 4, "NUL inside"},
        {"/a/\0", 4, "NUL as a param"},
        {"//////", 6, "slash run"},
        {"/a//b", 5, "empty middle segment"},
        {"/a%2Fb", 6, "percent-encoded slash is bytes"},
        {"/a/%2F", 6, "percent-encoded slash as param"},
        {"/u/\xff\xfe", 5, "non-UTF-8 static"},
        {"/a/\xc3\x28", 5, "invalid UTF-8 param"},
        {"/s/", 3, "catch-all without bytes"},
        {"/", 1, "root"},
        {"/x/ /y", 6, "space inside"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        all_agree(cases[i].path, cases[i].len, cases[i].what);
}

Test(hostile, one_mebibyte_path, .timeout = 120)
{
    size_t len = 1u << 20;
    char *path = malloc(len);
    cr_assert_not_null(path);
    memcpy(path, "/long/", 6);
    memset(path + 6, 'v', len - 6);
    all_agree(path, len, "1 MiB, one long segment");
    memcpy(path, "/deep/", 6);
    all_agree(path, len, "1 MiB catch-all");
    free(path);
}

Test(hostile, one_hundred_thousand_segments, .timeout = 120)
{
    size_t segs = 100000, len = segs * 2;
    char *path = malloc(len);
    cr_assert_not_null(path);
    for (size_t i = 0; i < segs; i++) {
        path[2 * i] = '/';
        path[2 * i + 1] = 'a';
    }
    all_agree(path, len, "100,000 segments of /a");
    memcpy(path, "/deep/", 6);
    all_agree(path, len, "100,000 segments under a catch-all");
    memset(path, '/', len);
    all_agree(path, len, "200,000 empty segments");
    free(path);
}

Test(hostile, every_path_length_at_the_end_of_an_allocation)
{
    /* Paths of length 0..64 in a buffer of exactly that size: any read past
     * the end is caught by ASan (and valgrind).  Each path is built from a
     * prefix that reaches deep into the table. */
    const char *prefixes[] = {"/a/", "/long/", "/x/", "/s/", "/u/", "/e/"};
    for (size_t p = 0; p < sizeof prefixes / sizeof prefixes[0]; p++) {
        for (size_t len = 0; len <= 64; len++) {
            char *path = malloc(len ? len : 1);
            cr_assert_not_null(path);
            size_t plen = strlen(prefixes[p]);
            for (size_t i = 0; i < len; i++)
                path[i] = i < plen ? prefixes[p][i] : (char)('a' + (char)(i % 26));
            if (len > plen + 3) path[len - 3] = '/';
            all_agree(path, len, "end-of-buffer path");
            free(path);
        }
    }
}

Test(hostile, huge_and_malformed_patterns_get_errors_with_offsets)
{
    /* 64 KiB pattern: one static segment, accepted by every router */
    size_t len = 64 * 1024;
    char *pat = malloc(len);
    cr_assert_not_null(pat);
    pat[0] = '/';
    memset(pat + 1, 'p', len - 1);
    for (size_t i = 0; i < rb_registry_count(); i++) {
        const rb_router_ops *ops = rb_registry_at(i);
        rb_router *r;
        rb_error err;
        cr_assert_eq(rb_router_create_ops(ops, NULL, &r, &err), RB_OK);
        cr_expect_eq(rb_router_add(r, RB_GET, pat, len, 0, &err), RB_OK, "%s: %s", rb_ops_name(ops),
                     err.message);
        cr_assert_eq(rb_router_build(r, &err), RB_OK);
        rb_match m;
        cr_expect_eq(rb_router_lookup(r, RB_GET, pat, len, &m), RB_FOUND, "%s", rb_ops_name(ops));
        rb_router_destroy(r);
    }
    /* thousands of segments, then a malformed one at the very end */
    for (size_t i = 0; i < len; i += 2) {
        pat[i] = '/';
        pat[i + 1] = 's';
    }
    pat[len - 1] = '{';
    rb_pattern p;
    rb_error err;
    cr_expect_eq(rb_pattern_parse(pat, len, NULL, &p, &err), RB_EPATTERN);
    cr_expect_eq(err.offset, len - 1, "%s", err.message);
    pat[len - 1] = 's';
    cr_assert_eq(rb_pattern_parse(pat, len, NULL, &p, &err), RB_OK);
    cr_expect_eq(p.nsegs, len / 2);
    rb_pattern_free(&p);
    free(pat);
}
