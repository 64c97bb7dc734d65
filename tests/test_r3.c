/*
 * test_r3.c — the r3 peer adapter (routers/peers/r3.c), when libr3 is built
 * in.  It does not assert that r3 is correct (r3's disagreements are what
 * we measure); it asserts that the adapter never crashes, refuses what r3
 * cannot express as RB_EUNSUPPORTED (or a table r3 cannot hold as
 * RB_ELIMIT, before r3 overflows its buffers: the ASan build checks), that
 * what it translates it translates exactly (spans, 405 masks, methods), and
 * that `routebench verify` prints the same numbers as rb_verify.
 */
#include "rb_test.h"
#include "shipped.h"
#include "rng.h"
#include "verify.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef RB_HAVE_R3

static const rb_router_ops *r3_ops(void)
{
    const rb_router_ops *ops = rb_registry_find("r3");
    cr_assert(ops, "RB_HAVE_R3 is set but no router 'r3' is registered");
    return ops;
}

static int add_line(rb_router *r, const char *line, uint32_t id, rb_error *err)
{
    const char *sp = strchr(line, ' ');
    int m = rb_method_parse(line, (size_t)(sp - line));
    cr_assert(m >= 0, "bad method in '%s'", line);
    return rb_router_add(r, m, sp + 1, strlen(sp + 1), id, err);
}

static void expect_match(const rb_router *r, const char *method, const char *path, int outcome,
                         uint32_t id, uint32_t nparams, const rb_span *spans, uint32_t allowed)
{
    rb_match m;
    rbt_lookup(r, method, path, &m);
    char got[200];
    rb_match_format(&m, got, sizeof got);
    cr_expect_eq(m.outcome, outcome, "%s %s: got %s", method, path, got);
    if (m.outcome != outcome) return;
    if (outcome == RB_METHOD_NOT_ALLOWED)
        cr_expect_eq(m.allowed, allowed, "%s %s: got %s", method, path, got);
    if (outcome != RB_FOUND) return;
    cr_expect_eq(m.route_id, id, "%s %s: got %s", method, path, got);
    cr_expect_eq(m.nparams, nparams, "%s %s: got %s", method, path, got);
    for (uint32_t k = 0; k < nparams && k < m.nparams; k++) {
        cr_expect_eq(m.params[k].offset, spans[k].offset, "%s %s capture %u: got %s", method, path,
                     k, got);
        cr_expect_eq(m.params[k].len, spans[k].len, "%s %s capture %u: got %s", method, path, k,
                     got);
    }
}

/* Rule: the example route set of every router file; spans worked out by
 * hand (offsets into the path). */
Test(r3, example_route_set_spans_and_405)
{
    const char *lines[] = {"GET /users", "GET /users/:id", "GET /users/me", "POST /users/:id/posts",
                           "GET /static/{*path}"};
    rb_router *r = rbt_build("r3", lines, 5);
    expect_match(r, "GET", "/users", RB_FOUND, 0, 0, NULL, 0);
    expect_match(r, "GET", "/users/42", RB_FOUND, 1, 1, (rb_span[]){{7, 2}}, 0);
    expect_match(r, "GET", "/users/me", RB_FOUND, 2, 0, NULL, 0);
    expect_match(r, "POST", "/users/7/posts", RB_FOUND, 3, 1, (rb_span[]){{7, 1}}, 0);
    expect_match(r, "GET", "/static/css/a b.css", RB_FOUND, 4, 1, (rb_span[]){{8, 11}}, 0);
    expect_match(r, "PUT", "/users/7", RB_METHOD_NOT_ALLOWED, 0, 0, NULL, RB_METHOD_BIT(RB_GET));
    expect_match(r, "GET", "/nope", RB_NOT_FOUND, 0, 0, NULL, 0);
    expect_match(r, "GET", "/static/", RB_NOT_FOUND, 0, 0, NULL, 0); /* catch-all needs 1+ */
    expect_match(r, "GET", "/users/", RB_NOT_FOUND, 0, 0, NULL, 0);  /* param needs 1+ */
    rb_error cerr;
    cr_expect_eq(rb_router_check(r, &cerr), RB_OK, "%s", cerr.message);
    cr_expect_gt(rb_router_memory(r), 0u);
    cr_expect(strstr(rb_router_describe(r), "nodes") != NULL, "describe: %s",
              rb_router_describe(r));
    rb_router_destroy(r);
}

/* Rule: a catch-all takes '/' and newline bytes (r3's '.' would not take
 * a newline; the adapter asks for (?s:.+)). */
Test(r3, catchall_takes_slashes_and_newlines)
{
    const char *lines[] = {"GET /f/*rest"};
    rb_router *r = rbt_build("r3", lines, 1);
    expect_match(r, "GET", "/f/a\nb/c", RB_FOUND, 0, 1, (rb_span[]){{3, 5}}, 0);
    rb_router_destroy(r);
}

/* Rule: every method, CONNECT and TRACE included (r3 names neither), and
 * "*" as r3's any-method route; a specific method wins over "*". */
Test(r3, methods_and_any)
{
    const char *lines[] = {"CONNECT /c", "TRACE /c", "* /a", "PATCH /a", "OPTIONS /o"};
    rb_router *r = rbt_build("r3", lines, 5);
    expect_match(r, "CONNECT", "/c", RB_FOUND, 0, 0, NULL, 0);
    expect_match(r, "TRACE", "/c", RB_FOUND, 1, 0, NULL, 0);
    expect_match(r, "GET", "/c", RB_METHOD_NOT_ALLOWED, 0, 0, NULL,
                 RB_METHOD_BIT(RB_CONNECT) | RB_METHOD_BIT(RB_TRACE));
    expect_match(r, "PATCH", "/a", RB_FOUND, 3, 0, NULL, 0);
    expect_match(r, "DELETE", "/a", RB_FOUND, 2, 0, NULL, 0);
    expect_match(r, "HEAD", "/o", RB_METHOD_NOT_ALLOWED, 0, 0, NULL, RB_METHOD_BIT(RB_OPTIONS));
    rb_router_destroy(r);
}

/* Rule: what r3 cannot express is refused as RB_EUNSUPPORTED at the
 * offending byte, and the router is unchanged. */
Test(r3, refusals_name_the_byte)
{
    rb_router *r;
    rb_error err;
    cr_assert_eq(rb_router_create("r3", NULL, &r, &err), RB_OK);
    struct {
        const char *line;
        size_t offset;
    } refused[] = {
        {"GET /a+b", 2},     {"GET /x/(y)", 3},
        {"GET /x/a|b", 4},   {"GET /x/a$", 4},
        {"GET /x/^a", 3},    {"GET /x/a\\b", 4},
        {"GET /x/a]", 4},    {"GET /img/*.png", 5},
        {"GET /v2/**/x", 4}, {"GET /u/\xc3\xa9t\xc3\xa9", 3},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        int rc = add_line(r, refused[i].line, (uint32_t)i, &err);
        cr_expect_eq(rc, RB_EUNSUPPORTED, "%s: %d %s", refused[i].line, rc, err.message);
        cr_expect_eq(err.offset, refused[i].offset, "%s: offset %zu (%s)", refused[i].line,
                     err.offset, err.message);
    }
    cr_expect_eq(rb_router_count(r), 0u);
    cr_assert_eq(add_line(r, "GET /a.b", 0, &err), RB_OK, "%s", err.message); /* '.' passes */
    cr_assert_eq(rb_router_build(r, &err), RB_OK, "%s", err.message);
    rb_match m;
    cr_expect_eq(rbt_lookup(r, "GET", "/a.b", &m), RB_FOUND);
    rb_router_destroy(r);
}

/* Rule: static text with ':' switches params to the explicit {p:[^/]+}
 * (r3 would read the ':' as the slug's regex), and still matches. */
Test(r3, colon_in_static_text)
{
    const char *lines[] = {"GET /v1/:name/x:batch", "GET /v1/:name"};
    rb_router *r = rbt_build("r3", lines, 2);
    cr_expect(strstr(rb_router_describe(r), "{p:[^/]+}") != NULL, "%s", rb_router_describe(r));
    expect_match(r, "GET", "/v1/abc/x:batch", RB_FOUND, 0, 1, (rb_span[]){{4, 3}}, 0);
    expect_match(r, "GET", "/v1/abc", RB_FOUND, 1, 1, (rb_span[]){{4, 3}}, 0);
    rb_router_destroy(r);
}

/* Build "GET /api/" + n times 'x' and "GET /api/:id": the node after
 * "/api/" compiles to "^(xxx...)|^([^/]+)", 12 + n bytes. */
static int build_wide_node(size_t n, rb_router **out, rb_error *err)
{
    char line[400];
    memcpy(line, "GET /api/", 9);
    memset(line + 9, 'x', n);
    line[9 + n] = '\0';
    cr_assert_eq(rb_router_create("r3", NULL, out, err), RB_OK);
    cr_assert_eq(add_line(*out, line, 0, err), RB_OK, "%s", err->message);
    cr_assert_eq(add_line(*out, "GET /api/:id", 1, err), RB_OK, "%s", err->message);
    return rb_router_build(*out, err);
}

/* Rule: r3 writes a node's regex into a fixed 192-byte buffer; a table
 * needing 192 bytes or more is RB_ELIMIT at build (r3 is never asked to
 * compile it: the ASan build would report its heap overflow), 191 works. */
Test(r3, node_regex_buffer_limit)
{
    rb_router *r;
    rb_error err;
    cr_expect_eq(build_wide_node(179, &r, &err), RB_OK, "191 bytes: %s", err.message);
    rb_match m;
    cr_expect_eq(rbt_lookup(r, "GET", "/api/7", &m), RB_FOUND);
    rb_router_destroy(r);

    cr_expect_eq(build_wide_node(180, &r, &err), RB_ELIMIT, "192 bytes must be refused");
    cr_expect(strstr(err.message, "192-byte") != NULL, "%s", err.message);
    cr_expect_eq(rbt_lookup(r, "GET", "/api/7", &m), RB_NOT_FOUND); /* not built */
    rb_router_destroy(r);
}

/* Rule: paths longer than the adapter's stack copy still match (heap
 * copy); beyond r3's 16-bit remaining lengths r3 answers without reading
 * out of bounds (the ASan build checks; the answer itself is r3's). */
Test(r3, long_paths)
{
    const char *lines[] = {"GET /l/:v/end", "GET /s/*rest"};
    rb_router *r = rbt_build("r3", lines, 2);
    size_t n = 5000;
    char *path = malloc(70000);
    cr_assert(path);
    memcpy(path, "/l/", 3);
    memset(path + 3, 'v', n);
    memcpy(path + 3 + n, "/end", 5);
    expect_match(r, "GET", path, RB_FOUND, 0, 1, (rb_span[]){{3, (uint32_t)n}}, 0);
    memcpy(path, "/s/", 3);
    memset(path + 3, 'w', 69990);
    rb_match m;
    cr_expect_eq(rb_router_lookup(r, RB_GET, path, 65535, &m), RB_FOUND);
    cr_expect_eq(m.params[0].len, 65532u);
    int outcome = rb_router_lookup(r, RB_GET, path, 69993, &m);
    cr_log_info("r3 on a 69,993-byte path: %d", outcome);
    if (outcome == RB_FOUND)
        cr_expect(m.params[0].offset == UINT32_MAX ||
                  m.params[0].offset + m.params[0].len <= 69993);
    free(path);
    rb_router_destroy(r);
}

/* Parse "A/N agree with EXPECTED, B/N with linear[; R/T routes refused]"
 * from `routebench verify` output. */
static bool parse_verify_line(const char *out, size_t *a, size_t *n, size_t *b, size_t *refused)
{
    const char *p = strstr(out, ".requests: ");
    if (!p) return false;
    size_t n2;
    if (sscanf(p, ".requests: %zu/%zu agree with EXPECTED, %zu/%zu with linear", a, n, b, &n2) != 4)
        return false;
    *refused = 0;
    const char *q = strstr(p, "; "), *eol = strchr(p, '\n'); /* on this line only */
    if (q && eol && q > eol) q = NULL;
    if (q && sscanf(q, "; %zu/", refused) != 1) return false;
    return n2 == *n;
}

/* `routebench verify --router r3 --corpus NAME` must print rep's numbers
 * and exit 0 exactly when everything agreed. */
static void expect_cli_matches(const char *name, const rb_verify_report *rep)
{
    char cmd[4200], out[8192];
    snprintf(cmd, sizeof cmd, "'%s' verify --router r3 --corpus %s", RB_ROUTEBENCH_EXE, name);
    FILE *f = popen(cmd, "r");
    cr_assert(f);
    size_t got = fread(out, 1, sizeof out - 1, f);
    out[got] = '\0';
    int status = pclose(f);
    size_t a, n, b, refused;
    cr_assert(parse_verify_line(out, &a, &n, &b, &refused), "%s: cannot parse: %s", name, out);
    cr_expect_eq(a, rep->agree_expected, "%s", name);
    cr_expect_eq(b, rep->agree_linear, "%s", name);
    cr_expect_eq(n, rep->requests, "%s", name);
    cr_expect_eq(refused, rep->refused, "%s", name);
    bool clean = rep->refused == 0 && a == n && b == n;
    cr_expect_eq(status == 0, clean, "%s: exit status %d", name, status);
}

/* Rule: every shipped corpus goes through r3 without a crash or an error;
 * refusals are exactly the routes using globs or a template before their
 * last segment (counted here from the
 * parse), and `routebench verify --router r3` prints rb_verify's numbers. */
Test(r3, shipped_corpora_and_verify_output, .timeout = 300)
{
    for (size_t c = 0; c < rb_shipped_count(); c++) {
        const char *name = rb_shipped_name(c);
        char rpath[4096];
        rb_route_table routes;
        rb_request_table reqs;
        rb_error err;
        rbt_load_shipped(name, &routes, &reqs, rpath, sizeof rpath);
        size_t globs = 0;
        for (size_t i = 0; i < routes.count; i++) {
            rb_pattern p;
            cr_assert_eq(rb_pattern_parse(rb_route_pattern(&routes, i), routes.routes[i].len, NULL,
                                          &p, &err),
                         RB_OK);
            bool inner_template = false; /* r3 takes a template only as the last segment */
            for (uint32_t k = 0; k + 1 < p.nsegs; k++)
                inner_template = inner_template || p.segs[k].kind == RB_SEG_TEMPLATE;
            globs += (p.features & RB_FEAT_GLOB) != 0 || inner_template;
            rb_pattern_free(&p);
        }
        rb_verify_report rep;
        cr_assert_eq(rb_verify(r3_ops(), &routes, rpath, &reqs, &rep, &err), RB_OK, "%s: %s", name,
                     err.message);
        cr_expect_eq(rep.refused, globs,
                     "%s: %zu refused, %zu routes use globs or a template before the last "
                     "segment (%s)",
                     name, rep.refused, globs, rep.first_refusal.message);
        cr_log_info("r3 on %s: %zu/%zu agree with EXPECTED, %zu/%zu with linear, %zu/%zu "
                    "refused",
                    name, rep.agree_expected, rep.requests, rep.agree_linear, rep.requests,
                    rep.refused, rep.routes);

        if (rep.refused == 0) {
            rb_router *r;
            cr_assert_eq(rb_route_table_build_router(&routes, name, r3_ops(), NULL, &r, &err),
                         RB_OK, "%s", err.message);
            rb_error cerr;
            cr_expect_eq(rb_router_check(r, &cerr), RB_OK, "%s: %s", name, cerr.message);
            rb_router_destroy(r);
        }

        /* the CLI prints the same numbers (one clean and one disagreeing
         * corpus: each run is a process, slow under ASan) */
        if (c == 0 || c + 1 == rb_shipped_count()) expect_cli_matches(name, &rep);
        rb_route_table_free(&routes);
        rb_request_table_free(&reqs);
    }
}

/* Seeded random tables in the style of test_differential (static/param
 * conflicts, catch-alls, '.', empty segments, shared prefixes, every
 * method and "*"): r3 must never crash or read out of bounds (the ASan
 * build checks), build must succeed or be RB_ELIMIT, and every answer must
 * be well-formed: a found id is an accepted route, a span lies inside the
 * path or is flagged UINT32_MAX, a 405 mask is non-empty.  Agreement with
 * linear is logged, not asserted. */
Test(r3, random_tables_never_crash, .timeout = 300)
{
    static const char *const words[] = {"",   "u",   "us", "user", "users", "username", "me", "a",
                                        "ab", "x.y", "v1", "new",  "a.b",   "id",       "x-y"};
    const size_t nwords = sizeof words / sizeof words[0];
    /* [0]: tables without a catch-all, [1]: with one */
    size_t requests[2] = {0, 0}, agree[2] = {0, 0}, tables = 0, limited = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        rb_rng rng;
        rb_rng_seed(&rng, seed);
        rb_router *r, *ref;
        rb_error err;
        cr_assert_eq(rb_router_create("r3", NULL, &r, &err), RB_OK);
        cr_assert_eq(rb_router_create("linear", NULL, &ref, &err), RB_OK);
        char pats[40][200];
        bool accepted[40] = {false};
        int has_catchall = 0;
        for (uint32_t id = 0; id < 40; id++) {
            size_t n = 0;
            unsigned depth = 1 + (unsigned)rb_rng_below(&rng, 5);
            for (unsigned d = 0; d < depth; d++) {
                unsigned k = (unsigned)rb_rng_below(&rng, seed % 2 ? 92 : 100); /* odd: no *c */
                const char *w = k < 60 ? words[rb_rng_below(&rng, nwords)] : k < 92 ? ":p" : "*c";
                n += (size_t)snprintf(pats[id] + n, sizeof pats[id] - n, "/%s", w);
                if (k >= 60 && k < 92) n += (size_t)snprintf(pats[id] + n, 8, "%u", d);
                if (k >= 92) break;
            }
            int method = rb_rng_below(&rng, 8) == 0 ? RB_ANY : (int)rb_rng_below(&rng, 9);
            int rc = rb_router_add(r, method, pats[id], n, id, &err);
            cr_assert(rc == RB_OK || rc == RB_EDUPLICATE, "seed %llu: %s: %s",
                      (unsigned long long)seed, pats[id], err.message);
            if (rc == RB_OK) {
                cr_assert_eq(rb_router_add(ref, method, pats[id], n, id, &err), RB_OK);
                accepted[id] = true;
                if (strstr(pats[id], "/*")) has_catchall = 1;
            }
        }
        int rc = rb_router_build(r, &err);
        cr_assert(rc == RB_OK || rc == RB_ELIMIT, "seed %llu: %s", (unsigned long long)seed,
                  err.message);
        cr_assert_eq(rb_router_build(ref, &err), RB_OK);
        tables++;
        if (rc == RB_ELIMIT) limited++;
        for (unsigned i = 0; rc == RB_OK && i < 200; i++) {
            char path[300];
            const char *pat = pats[rb_rng_below(&rng, 40)];
            size_t n = 0;
            for (const char *p = pat; *p && n < 250;) { /* params -> a word or "v42" */
                if (p[0] == '/' && (p[1] == ':' || p[1] == '*')) {
                    const char *w =
                        rb_rng_below(&rng, 2) ? words[rb_rng_below(&rng, nwords)] : "v42/z";
                    n += (size_t)snprintf(path + n, sizeof path - n, "/%s", w);
                    p++;
                    while (*p && *p != '/') p++;
                } else {
                    path[n++] = *p++;
                }
            }
            if (rb_rng_below(&rng, 4) == 0) path[n++] = '/';
            path[n] = '\0';
            int method = (int)rb_rng_below(&rng, 9);
            rb_match got, want;
            memset(&got, 0, sizeof got);
            rb_router_lookup(r, method, path, n, &got);
            rb_router_lookup(ref, method, path, n, &want);
            requests[has_catchall]++;
            agree[has_catchall] += rb_match_equal(&got, &want);
            if (got.outcome == RB_FOUND) {
                cr_assert(got.route_id < 40 && accepted[got.route_id], "seed %llu: id %u",
                          (unsigned long long)seed, got.route_id);
                cr_assert_leq(got.nparams, RB_MAX_CAPTURES);
                for (uint32_t k = 0; k < got.nparams; k++)
                    cr_assert(got.params[k].offset == UINT32_MAX ||
                                  got.params[k].offset + got.params[k].len <= n,
                              "seed %llu: %s capture %u", (unsigned long long)seed, path, k);
            } else if (got.outcome == RB_METHOD_NOT_ALLOWED) {
                cr_assert_neq(got.allowed, 0u);
            } else {
                cr_assert_eq(got.outcome, RB_NOT_FOUND);
            }
        }
        rb_router_destroy(r);
        rb_router_destroy(ref);
    }
    cr_log_info("r3 on %zu random tables (%zu over r3's regex buffer): answers agreeing with "
                "linear: %zu/%zu on tables without a catch-all, %zu/%zu on tables with one",
                tables, limited, agree[0], requests[0], agree[1], requests[1]);
    cr_expect_gt(requests[0] + requests[1], 0u);
}

#else

/* Without libr3 there is no r3 router: the suite says so instead of
 * passing an empty test. */
Test(r3, adapter_is_tested_when_libr3_is_built)
{
    cr_assert_null(rb_registry_find("r3"), "r3 is registered but RB_HAVE_R3 is not set");
    cr_skip("libr3 not found at configure time (Debian package libr3-dev): the r3 peer is not "
            "built");
}

#endif
