/*
 * test_compile.c — routers generated for a fixed table (corpus/compile.h)
 * and the `compiled` router that builds them on the fly
 * (bench/measure/compiled.h), against linear.
 *
 * The generated C is compiled with the compiler CMake uses (RB_TEST_CC)
 * into a cache under the build directory.  Every answer (outcome, route id,
 * every capture span, the 405 mask) must equal linear's: on seeded random
 * tables with static/param conflicts, templates, catch-alls, trailing
 * slashes and empty segments, probed with each route's own paths, near
 * misses and every method; on generated corpora; on the shipped tables.
 * Refusals: globs and `**` (naming the route), a table the library was not
 * compiled for, a missing compiler.
 *
 * No Criterion timeouts here (CTest's bounds the whole): two tests with
 * timeouts running at once make Criterion's runner leak (tests/CMakeLists.txt),
 * which fails the ASan build.
 */
#include "compile.h"
#include "compiled.h"
#include "file.h"
#include "generate.h"
#include "plugins.h"
#include "rb_test.h"
#include "reqgen.h"
#include "rng.h"
#include "shipped.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef RB_TEST_CC
#define RB_TEST_CC "cc"
#endif

/* The compiler CMake uses, and a cache of the build's own. */
static void use_build_compiler(void)
{
    setenv("CC", RB_TEST_CC, 1);
    setenv("RB_COMPILED_CACHE", RB_BINARY_DIR "/compiled-cache", 1);
}

TestSuite(compile, .init = use_build_compiler);

/* ---- random tables ------------------------------------------------------- */

static const char *const words[] = {"",    "u",       "us",       "user",       "users", "username",
                                    "me",  "a",       "ab",       "abcdefghij", "x-y",   "v1",
                                    "new", "id.json", "abcdefgh", "abcdefgi"};
#define NWORDS (sizeof words / sizeof words[0])
static const char *const templates[] = {"%.json", "img-%.png", "%.%", "%-%",   "v%",
                                        "%-x-%",  "%.png",     "x.%", "user%", "%e"};
#define NTEMPLATES (sizeof templates / sizeof templates[0])
static const char *const values[] = {"1", "a", ".", "-x-", "a.b", "v42", "png", "e", "json", "me"};
#define NVALUES (sizeof values / sizeof values[0])

static const char *pick(rb_rng *g, const char *const *xs, size_t n)
{
    return xs[rb_rng_below(g, n)];
}

static void put(char *buf, size_t cap, size_t *n, const char *s)
{
    int w = snprintf(buf + *n, *n < cap ? cap - *n : 0, "%s", s);
    if (w > 0) *n += (size_t)w;
}

static void make_pattern(rb_rng *g, bool with_templates, char *buf, size_t cap)
{
    size_t n = 0;
    unsigned depth = 1 + (unsigned)rb_rng_below(g, 4), captures = 0;
    for (unsigned d = 0; d < depth; d++) {
        put(buf, cap, &n, "/");
        unsigned r = (unsigned)rb_rng_below(g, 100);
        char name[16];
        if (r < 55) {
            put(buf, cap, &n, pick(g, words, NWORDS));
        } else if (r < 80) {
            snprintf(name, sizeof name, rb_rng_below(g, 2) ? ":p%u" : "{p%u}", captures++);
            put(buf, cap, &n, name);
        } else if (with_templates && r < 92) {
            for (const char *t = pick(g, templates, NTEMPLATES); *t; t++) {
                char c[2] = {*t, '\0'};
                if (*t == '%') snprintf(name, sizeof name, "{p%u}", captures++);
                put(buf, cap, &n, *t == '%' ? name : c);
            }
        } else {
            snprintf(name, sizeof name, rb_rng_below(g, 2) ? "*c%u" : "{*c%u}", captures++);
            put(buf, cap, &n, name);
            return;
        }
    }
}

/* A path from a pattern (each segment replaced by something it matches),
 * then maybe mutated: a trailing '/', '//', the last segment dropped, one
 * more segment, a byte changed or a segment one byte longer. */
static void make_path(rb_rng *g, const char *pattern, char *buf, size_t cap)
{
    size_t n = 0;
    for (const char *p = pattern; *p == '/';) {
        const char *s = p + 1, *e = strchr(s, '/');
        if (!e) e = s + strlen(s);
        char seg[64];
        snprintf(seg, sizeof seg, "%.*s", (int)(e - s), s);
        put(buf, cap, &n, "/");
        bool whole = seg[0] == '{' && !strchr(seg + 1, '{') && seg[strlen(seg) - 1] == '}';
        if (strchr(seg, '{') && !whole) {
            for (const char *t = seg; *t; t++) {
                char c[2] = {*t, '\0'};
                if (*t != '{') {
                    put(buf, cap, &n, c);
                    continue;
                }
                while (*t != '}') t++;
                put(buf, cap, &n, pick(g, values, NVALUES));
            }
        } else if (seg[0] == ':' || seg[0] == '{' || seg[0] == '*') {
            put(buf, cap, &n, rb_rng_below(g, 2) ? pick(g, words, NWORDS) : "v42");
            if ((seg[0] == '*' || seg[1] == '*') && rb_rng_below(g, 2)) put(buf, cap, &n, "/x//y");
        } else {
            put(buf, cap, &n, seg);
        }
        p = e;
    }
    switch (rb_rng_below(g, 10)) {
    case 0:
        put(buf, cap, &n, "/");
        break;
    case 1:
        put(buf, cap, &n, "//");
        break;
    case 2: {
        char *last = strrchr(buf, '/');
        if (last && last != buf) *last = '\0';
        break;
    }
    case 3:
        put(buf, cap, &n, "/");
        put(buf, cap, &n, pick(g, words, NWORDS));
        break;
    case 4:
        if (n > 1) buf[1 + rb_rng_below(g, n - 1)] ^= 1; /* a near miss */
        break;
    case 5:
        put(buf, cap, &n, "x");
        break;
    default:
        break;
    }
}

static void random_round(uint64_t seed, bool with_templates)
{
    rb_rng g;
    rb_rng_seed(&g, seed);
    char label[80];
    snprintf(label, sizeof label, "compiled seed %llu", (unsigned long long)seed);
    rbt_pair p;
    rbt_pair_init(&p, &rb_bench_compiled_ops, NULL, label);
    char patterns[48][256];
    size_t npatterns = 0;
    for (uint32_t id = 0; id < 48; id++) {
        char pat[256];
        make_pattern(&g, with_templates, pat, sizeof pat);
        unsigned r = (unsigned)rb_rng_below(&g, 10);
        int method = r < 4 ? RB_GET : r == 9 ? RB_ANY : (int)rb_rng_below(&g, RB_METHOD_COUNT);
        if (rbt_pair_add(&p, method, pat, strlen(pat), id) == RB_OK)
            memcpy(patterns[npatterns++], pat, sizeof pat);
    }
    rbt_pair_build(&p);
    static const char *const odd[] = {"/", "", "x", "//", "/users/", "/users//", "/u/", "///"};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
        for (int m = 0; m < RB_METHOD_COUNT; m++) rbt_pair_lookup(&p, m, odd[i], strlen(odd[i]));
    for (unsigned i = 0; i < 400 && npatterns; i++) {
        char path[512];
        make_path(&g, patterns[rb_rng_below(&g, npatterns)], path, sizeof path);
        for (int m = 0; m < RB_METHOD_COUNT; m++)
            if (m == RB_GET || i % 4 == 0) rbt_pair_lookup(&p, m, path, strlen(path));
    }
    rbt_pair_free(&p);
}

Test(compile, agrees_with_linear_on_random_tables)
{
    for (uint64_t seed = 1; seed <= 12; seed++) random_round(seed, false);
}

Test(compile, agrees_with_linear_on_random_tables_with_templates)
{
    for (uint64_t seed = 101; seed <= 116; seed++) random_round(seed, true);
}

/* ---- generated corpora and shipped tables ------------------------------- */

static rb_router *build_from(const rb_route_table *t, const rb_router_ops *ops, const char *what)
{
    rb_router *r;
    rb_error err;
    int rc = rb_route_table_build_router(t, what, ops, NULL, &r, &err);
    cr_assert_eq(rc, RB_OK, "%s on %s: %s", rb_ops_name(ops), what, err.message);
    return r;
}

static void agree_on(const rb_route_table *routes, const rb_request_table *reqs, const char *what)
{
    rb_router *r = build_from(routes, &rb_bench_compiled_ops, what);
    rb_router *lin = build_from(routes, &rb__linear_ops, what);
    rbt_expect_like_on(r, lin, reqs, what);
    /* and every route's own pattern text as a path (params as their names) */
    for (size_t i = 0; i < routes->count; i++)
        for (int m = 0; m < RB_METHOD_COUNT; m++)
            rbt_expect_like(r, lin, m, rb_route_pattern(routes, i), routes->routes[i].len, what);
    rb_router_destroy(r);
    rb_router_destroy(lin);
}

Test(compile, agrees_with_linear_on_generated_corpora)
{
    static const int shapes[] = {RB_GEN_STATIC, RB_GEN_PARAMS, RB_GEN_MIXED, RB_GEN_CATCHALL,
                                 RB_GEN_TEMPLATES};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        for (int nc = 0; nc < 2; nc++) {
            rb_gen_config cfg = {
                .routes = 300, .seed = 7 + s, .shape = shapes[s], .no_conflicts = nc};
            rb_route_table routes;
            rb_error err;
            cr_assert_eq(rb_corpus_generate(&cfg, &routes, &err), RB_OK, "%s", err.message);
            rb_reqgen_config qc;
            rb_reqgen_config_init(&qc);
            rb_request_table reqs;
            rb_reqgen_report rep;
            cr_assert_eq(rb_requests_generate(&routes, &qc, &reqs, &rep, &err), RB_OK, "%s",
                         err.message);
            char what[64];
            snprintf(what, sizeof what, "%s-%s300", rb_gen_shape_name(shapes[s]), nc ? "nc-" : "");
            agree_on(&routes, &reqs, what);
            rb_route_table_free(&routes);
            rb_request_table_free(&reqs);
        }
    }
}

Test(compile, agrees_with_linear_on_shipped_tables_or_names_the_refused_route)
{
    for (size_t i = 0; i < rb_shipped_count(); i++) {
        const char *name = rb_shipped_name(i);
        rb_route_table routes;
        rb_request_table reqs;
        char rpath[4096];
        rbt_load_shipped(name, &routes, &reqs, rpath, sizeof rpath);
        if (rb_route_table_features(&routes) & RB_FEAT_GLOB) {
            /* refused by compile with the route named, file:line */
            rb_buf src = {0};
            rb_error err;
            cr_assert_eq(rb_compile_table(&routes, rpath, NULL, &src, &err), RB_EUNSUPPORTED,
                         "%s compiled", name);
            char where[4200];
            snprintf(where, sizeof where, "%s:%zu: route ", rpath, err.line);
            cr_expect(err.line > 0 && strstr(err.message, where), "%s", err.message);
            cr_expect(strstr(err.message, "glob") || strstr(err.message, "**"), "%s", err.message);
            rb_buf_free(&src);
        } else {
            agree_on(&routes, &reqs, name);
        }
        rb_route_table_free(&routes);
        rb_request_table_free(&reqs);
    }
}

/* ---- refusals ------------------------------------------------------------- */

Test(compile, refuses_globs_and_globstars_naming_the_route)
{
    rb_route_table t = rbt_parse_routes("GET /a/:id\nGET /b/**/c\n");
    rb_buf src = {0};
    rb_error err;
    cr_assert_eq(rb_compile_table(&t, "t.routes", NULL, &src, &err), RB_EUNSUPPORTED);
    cr_expect(strstr(err.message, "t.routes:2: route 1 (GET /b/**/c)"), "%s", err.message);
    cr_expect_eq(err.offset, 3u);
    rb_buf_free(&src);
    rb_route_table_free(&t);
    t = rbt_parse_routes("GET /img/*.png\n");
    cr_assert_eq(rb_compile_table(&t, "u.routes", NULL, &src, &err), RB_EUNSUPPORTED);
    cr_expect(strstr(err.message, "u.routes:1: route 0 (GET /img/*.png)"), "%s", err.message);
    rb_buf_free(&src);
    rb_route_table_free(&t);
}

/* An empty table (a file of comments only) is refused naming the file:
 * the message was "the table has no routes", with no file (found by
 * fuzz_compile). */
Test(compile, regression_188_an_empty_table_is_refused_naming_the_file)
{
    rb_route_table t = rbt_parse_routes("# nothing here\n");
    rb_buf src = {0};
    rb_error err;
    cr_assert_eq(rb_compile_table(&t, "empty.routes", NULL, &src, &err), RB_EINVAL);
    cr_expect_str_eq(err.message, "empty.routes: the table has no routes");
    rb_buf_free(&src);
    rb_route_table_free(&t);
}

Test(compile, refuses_a_prefix_that_is_not_a_c_identifier)
{
    rb_route_table t = rbt_parse_routes("GET /a\n");
    rb_buf src = {0};
    rb_error err;
    cr_expect_eq(rb_compile_table(&t, "t", "1abc", &src, &err), RB_EINVAL);
    cr_expect_eq(rb_compile_table(&t, "t", "a-b", &src, &err), RB_EINVAL);
    cr_expect_eq(rb_compile_table(&t, "t", "", &src, &err), RB_EINVAL);
    rb_buf_free(&src);
    cr_expect_eq(rb_compile_table(&t, "t", "my_router2", &src, &err), RB_OK, "%s", err.message);
    cr_expect(strstr(src.data, "int my_router2_lookup(int method"));
    rb_buf_free(&src);
    rb_route_table_free(&t);
}

Test(compile, cli_refuses_a_glob_naming_the_route_and_writes_nothing)
{
    char *dir = rbt_tmpdir();
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "printf 'GET /a/:id\\nPOST /files/*.txt\\n' > t.routes && "
             "\"$RB\" compile --routes t.routes -o out.c");
    rbt_shell r = rbt_shell_run(dir, cmd);
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect(strstr(r.err, "routebench compile: t.routes:2: route 1 (POST /files/*.txt)"), "%s",
              r.err);
    char path[4200];
    snprintf(path, sizeof path, "%s/out.c", dir);
    cr_expect(access(path, F_OK) != 0, "out.c was written");
    rbt_shell_free(&r);
    /* stdin and stdout */
    r = rbt_shell_run(dir, "printf 'GET /a/:id\\n' | \"$RB\" compile --routes - -o - --prefix t");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "int t_lookup(int method, const char *path, size_t len, t_match *m)"));
    rbt_shell_free(&r);
    rbt_remove_tree(dir);
    free(dir);
}

/* Generate name's C (shipped table) into dir/router.c. */
static void write_source(const char *dir, const char *name, const char *prefix)
{
    rb_route_table routes;
    rb_request_table reqs;
    char rpath[4096], out[4200];
    rbt_load_shipped(name, &routes, &reqs, rpath, sizeof rpath);
    rb_buf src = {0};
    rb_error err;
    cr_assert_eq(rb_compile_table(&routes, rpath, prefix, &src, &err), RB_OK, "%s", err.message);
    snprintf(out, sizeof out, "%s/router.c", dir);
    cr_assert_eq(rb_file_write_atomic(out, src.data, src.len, &err), RB_OK, "%s", err.message);
    rb_buf_free(&src);
    rb_route_table_free(&routes);
    rb_request_table_free(&reqs);
}

Test(compile, generated_file_compiles_standalone_with_strict_warnings)
{
    char *dir = rbt_tmpdir();
    write_source(dir, "twilio", "tw");
    /* no -I: only standard headers; a program that uses the API */
    rbt_shell r = rbt_shell_run(
        dir,
        "printf '#include \"router.c\"\\n#include <stdio.h>\\nint main(void)\\n{\\n"
        "    tw_match m;\\n    const char *p = \"/2010-04-01/Accounts/AC1/Calls/CA2.json\";\\n"
        "    int rc = tw_lookup(tw_GET, p, strlen(p), &m);\\n"
        "    printf(\"%%d %%s %%u %%u:%%u\\\\n\", rc, tw_route_pattern[m.route_id], m.nparams,"
        " m.params[1].offset, m.params[1].len);\\n    return 0;\\n}\\n' > main.c && " RB_TEST_CC
        " -std=c11 -Wall -Wextra -Werror -pedantic -O2 -o main main.c && ./main");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "200 /2010-04-01/Accounts/{AccountSid}/Calls/{Sid}.json 2 31:3"), "%s",
              r.out);
    rbt_shell_free(&r);
    /* the plugin: the installed headers only */
    r = rbt_shell_run(dir, RB_TEST_CC " -std=c11 -Wall -Wextra -Werror -pedantic -O1 -fPIC -shared"
                                      " -DRB_COMPILED_PLUGIN -I" RB_BINARY_DIR
                                      "/include -o router.so router.c");
    cr_expect_eq(r.status, 0, "%s", r.err);
    rbt_shell_free(&r);
    rbt_remove_tree(dir);
    free(dir);
}

Test(compile, plugin_refuses_a_table_it_was_not_compiled_for)
{
    char *dir = rbt_tmpdir();
    rb_route_table t = rbt_parse_routes("GET /a/:id\nPOST /a/:x\nGET /b/{*rest}\n");
    rb_buf src = {0};
    rb_error err;
    cr_assert_eq(rb_compile_table(&t, "t", NULL, &src, &err), RB_OK, "%s", err.message);
    char path[4200];
    snprintf(path, sizeof path, "%s/router.c", dir);
    cr_assert_eq(rb_file_write_atomic(path, src.data, src.len, &err), RB_OK);
    rb_buf_free(&src);
    rbt_shell r = rbt_shell_run(dir, RB_TEST_CC " -O1 -fPIC -shared -fvisibility=hidden"
                                                " -DRB_COMPILED_PLUGIN -I" RB_BINARY_DIR
                                                "/include -o router.so router.c");
    cr_assert_eq(r.status, 0, "%s", r.err);
    rbt_shell_free(&r);
    snprintf(path, sizeof path, "%s/router.so", dir);
    rb_plugins plugins;
    rb_plugins_init(&plugins);
    cr_assert_eq(rb_plugins_load(&plugins, path, &err), RB_OK, "%s", err.message);
    const rb_router_ops *ops = rb_plugins_ops(&plugins, 0);
    rb_router *x;
    /* the same table (param names may differ: the shape decides) */
    cr_assert_eq(rb_router_create_ops(ops, NULL, &x, &err), RB_OK);
    cr_assert_eq(rb_router_add(x, RB_GET, "/a/{n}", 6, 10, &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_router_add(x, RB_POST, "/a/:y", 5, 11, &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_router_add(x, RB_GET, "/b/*r", 5, 12, &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_router_build(x, &err), RB_OK, "%s", err.message);
    rb_match m;
    cr_expect_eq(rb_router_lookup(x, RB_GET, "/b/c/d", 6, &m), RB_FOUND);
    cr_expect_eq(m.route_id, 12u);
    cr_expect_eq(rb_router_lookup(x, RB_PUT, "/a/1", 4, &m), RB_METHOD_NOT_ALLOWED);
    cr_expect_eq(m.allowed, RB_METHOD_BIT(RB_GET) | RB_METHOD_BIT(RB_POST));
    rb_router_destroy(x);
    /* a route it does not have */
    cr_assert_eq(rb_router_create_ops(ops, NULL, &x, &err), RB_OK);
    cr_expect_eq(rb_router_add(x, RB_PUT, "/a/:id", 6, 0, &err), RB_EINVAL);
    cr_expect(strstr(err.message, "compiled for a different table: route id 0 (PUT /a/:id)"), "%s",
              err.message);
    rb_router_destroy(x);
    /* fewer routes */
    cr_assert_eq(rb_router_create_ops(ops, NULL, &x, &err), RB_OK);
    cr_assert_eq(rb_router_add(x, RB_GET, "/a/:id", 6, 0, &err), RB_OK);
    cr_expect_eq(rb_router_build(x, &err), RB_EINVAL);
    cr_expect(strstr(err.message, "compiled for a different table: it has 3 routes, this table 1"),
              "%s", err.message);
    rb_router_destroy(x);
    /* the same routes with ids in another order (ids break ties) */
    cr_assert_eq(rb_router_create_ops(ops, NULL, &x, &err), RB_OK);
    cr_assert_eq(rb_router_add(x, RB_GET, "/a/:id", 6, 2, &err), RB_OK);
    cr_assert_eq(rb_router_add(x, RB_POST, "/a/:x", 5, 1, &err), RB_OK);
    cr_assert_eq(rb_router_add(x, RB_GET, "/b/{*rest}", 10, 0, &err), RB_OK);
    cr_expect_eq(rb_router_build(x, &err), RB_EINVAL);
    cr_expect(strstr(err.message, "compiled for a different table: routes"), "%s", err.message);
    rb_router_destroy(x);
    rb_plugins_close(&plugins);
    rb_route_table_free(&t);
    rbt_remove_tree(dir);
    free(dir);
}

Test(compile, without_a_compiler_build_is_refused_naming_the_command)
{
    char *dir = rbt_tmpdir();
    setenv("RB_COMPILED_CACHE", dir, 1); /* empty: nothing cached */
    setenv("CC", "/nonexistent/bin/cc -O9", 1);
    rb_router *r;
    rb_error err;
    cr_assert_eq(rb_router_create_ops(&rb_bench_compiled_ops, NULL, &r, &err), RB_OK);
    cr_assert_eq(rb_router_add(r, RB_GET, "/a", 2, 0, &err), RB_OK);
    cr_expect_eq(rb_router_build(r, &err), RB_EUNSUPPORTED);
    cr_expect(strstr(err.message, "compiled needs a C compiler") &&
                  strstr(err.message, "/nonexistent/bin/cc -O9 -O2 -shared -fPIC"),
              "%s", err.message);
    rb_match m;
    cr_expect_eq(rb_router_lookup(r, RB_GET, "/a", 2, &m), RB_NOT_FOUND);
    rb_router_destroy(r);
    rbt_remove_tree(dir);
    free(dir);
}

Test(compile, a_second_build_of_one_table_uses_the_cache)
{
    char *dir = rbt_tmpdir();
    setenv("RB_COMPILED_CACHE", dir, 1);
    for (int round = 0; round < 2; round++) {
        rb_router *r;
        rb_error err;
        cr_assert_eq(rb_router_create_ops(&rb_bench_compiled_ops, NULL, &r, &err), RB_OK);
        cr_assert_eq(rb_router_add(r, RB_GET, "/cache/:k", 9, 0, &err), RB_OK);
        cr_assert_eq(rb_router_build(r, &err), RB_OK, "%s", err.message);
        const char *d = rb_router_describe(r);
        cr_expect(strstr(d, round == 0 ? "compiled in" : "found compiled in the cache"), "%s", d);
        rb_router_destroy(r);
    }
    rbt_remove_tree(dir);
    free(dir);
}

/* A compiler that never finishes is killed at the time budget, with the
 * passes it started, and build() says so (it waited forever before). */
Test(compile, regression_182_a_hung_compiler_is_killed_at_its_time_budget)
{
    char *dir = rbt_tmpdir();
    char cc[1200];
    snprintf(cc, sizeof cc, "%s/cc", dir);
    FILE *f = fopen(cc, "w");
    cr_assert_not_null(f);
    fputs("#!/bin/sh\nsleep 60 &\nwait\n", f);
    fclose(f);
    cr_assert_eq(chmod(cc, 0755), 0);
    setenv("RB_COMPILED_CACHE", dir, 1);
    setenv("CC", cc, 1);
    setenv("RB_COMPILED_TIMEOUT", "1", 1);
    rb_router *r;
    rb_error err;
    cr_assert_eq(rb_router_create_ops(&rb_bench_compiled_ops, NULL, &r, &err), RB_OK);
    cr_assert_eq(rb_router_add(r, RB_GET, "/hang/:x", 8, 0, &err), RB_OK);
    cr_expect_eq(rb_router_build(r, &err), RB_ELIMIT);
    cr_expect(strstr(err.message, "did not finish within 1 s") != NULL, "%s", err.message);
    rb_router_destroy(r);
    unsetenv("RB_COMPILED_TIMEOUT");
    rbt_remove_tree(dir);
    free(dir);
}

/* ---- the generated C's limits ------------------------------------------- */

/* Write the C of the routes file text to dir/router.c. */
static void write_table_source(const char *dir, const char *text, size_t len)
{
    rb_route_table routes;
    rb_error err;
    char out[1200];
    cr_assert_eq(rb_route_table_parse("t.routes", text, len, &routes, &err), RB_OK, "%s",
                 err.message);
    rb_buf src = {0};
    cr_assert_eq(rb_compile_table(&routes, "t.routes", "t", &src, &err), RB_OK, "%s", err.message);
    snprintf(out, sizeof out, "%s/router.c", dir);
    cr_assert_eq(rb_file_write_atomic(out, src.data, src.len, &err), RB_OK, "%s", err.message);
    rb_buf_free(&src);
    rb_route_table_free(&routes);
}

/* A pattern of 4,096 bytes or more was one string literal, over C11's
 * portable 4,095 (-pedantic: overlength-strings); the strings are now
 * arrays of numbers.  The long route is still found. */
Test(compile, regression_199_a_4096_byte_pattern_compiles_under_pedantic)
{
    char *dir = rbt_tmpdir();
    size_t n = 4 + 1 + 4200 + 1 + 13;
    char *text = malloc(n + 1);
    cr_assert_not_null(text);
    memcpy(text, "GET /", 5);
    memset(text + 5, 'a', 4200);
    memcpy(text + 5 + 4200, "\nGET /b/:id\n", 13);
    write_table_source(dir, text, strlen(text));
    free(text);
    rbt_shell r = rbt_shell_run(
        dir, "printf '#include \"router.c\"\\n#include <stdio.h>\\n#include <stdlib.h>\\n"
             "int main(void)\\n{\\n    t_match m;\\n    char *p = malloc(4201);\\n"
             "    int rc;\\n    p[0] = 47;\\n    memset(p + 1, 97, 4200);\\n"
             "    rc = t_lookup(t_GET, p, 4201, &m);\\n"
             "    printf(\"%%d %%u %%d\\\\n\", rc, rc == 200 ? m.route_id : 99u,"
             " (int)strlen(t_route_pattern[0]));\\n    free(p);\\n    return 0;\\n}\\n' > main.c"
             " && " RB_TEST_CC " -std=c11 -Wall -Wextra -Werror -pedantic -O1 -o main main.c"
             " && ./main");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "200 0 4201") != NULL, "%s", r.out);
    rbt_shell_free(&r);
    rbt_remove_tree(dir);
    free(dir);
}

/* The code of the generated file is the same whatever the table: only its
 * tables grow.  On the router of one function per trie node, 10,000
 * siblings with children were 10,000 functions (332 s and 2.96 GB of
 * compiler at -O0); now the file has as many functions as for one route,
 * and compiles at -O0 within 1 GB of address space. */
Test(compile, regression_200_ten_thousand_siblings_compile_within_the_budget)
{
    char *dir = rbt_tmpdir();
    rb_buf text = {0};
    for (int i = 0; i < 10000; i++) rb_buf_printf(&text, "GET /s/seg%d\nGET /s/seg%d/:x\n", i, i);
    cr_assert(!text.failed);
    write_table_source(dir, text.data, text.len);
    rb_buf_free(&text);
    char path[1200];
    snprintf(path, sizeof path, "%s/router.c", dir);
    size_t big_len = 0, small_len = 0;
    char *big = NULL, *small = NULL;
    cr_assert_eq(rb_file_read(path, &big, &big_len, NULL), RB_OK);
    write_table_source(dir, "GET /s\n", 7);
    cr_assert_eq(rb_file_read(path, &small, &small_len, NULL), RB_OK);
    size_t fns_big = 0, fns_small = 0;
    for (const char *s = big; (s = strstr(s, ")\n{\n")) != NULL; s++) fns_big++;
    for (const char *s = small; (s = strstr(s, ")\n{\n")) != NULL; s++) fns_small++;
    cr_expect_eq(fns_big, fns_small, "%zu functions for 20,000 routes, %zu for one", fns_big,
                 fns_small);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fwrite(big, 1, big_len, f);
    fclose(f);
    free(big);
    free(small);
    rbt_shell r = rbt_shell_run(dir, "ulimit -v 1000000 && ulimit -t 300 && " RB_TEST_CC
                                     " -std=c11 -Wall -Wextra -Werror -pedantic -O0 -c router.c");
    cr_expect_eq(r.status, 0, "%s", r.err);
    rbt_shell_free(&r);
    rbt_remove_tree(dir);
    free(dir);
}

/* A cache entry that does not load (a truncated .so: every later build
 * failed with "file too short" until it was deleted by hand, since build()
 * loaded whatever entry it found) is compiled again, once. */
Test(compile, regression_201_a_truncated_cache_entry_is_compiled_again)
{
    char *dir = rbt_tmpdir();
    setenv("RB_COMPILED_CACHE", dir, 1);
    for (int round = 0; round < 2; round++) {
        rb_router *r;
        rb_error err;
        cr_assert_eq(rb_router_create_ops(&rb_bench_compiled_ops, NULL, &r, &err), RB_OK);
        cr_assert_eq(rb_router_add(r, RB_GET, "/trunc/:k", 9, 0, &err), RB_OK);
        cr_assert_eq(rb_router_build(r, &err), RB_OK, "round %d: %s", round, err.message);
        cr_expect(strstr(rb_router_describe(r), "compiled in"), "%s", rb_router_describe(r));
        rb_match m;
        cr_expect_eq(rb_router_lookup(r, RB_GET, "/trunc/x", 8, &m), RB_FOUND);
        rb_router_destroy(r);
        if (round == 0) {
            rbt_shell s = rbt_shell_run(dir, "for f in *.so; do head -c 100 \"$f\" > t && mv t "
                                             "\"$f\"; done; ls *.so | wc -l");
            cr_assert_eq(s.status, 0, "%s", s.err);
            cr_assert(strstr(s.out, "1") != NULL, "%s", s.out);
            rbt_shell_free(&s);
        }
    }
    rbt_remove_tree(dir);
    free(dir);
}

/* A library that still does not load after compiling is reported, not
 * compiled again in a loop. */
Test(compile, a_library_that_does_not_load_is_reported)
{
    char *dir = rbt_tmpdir();
    char cc[1200];
    snprintf(cc, sizeof cc, "%s/cc", dir);
    FILE *f = fopen(cc, "w");
    cr_assert_not_null(f);
    /* writes 10 bytes to the file after -o */
    fputs("#!/bin/sh\nwhile [ $# -gt 0 ]; do if [ \"$1\" = -o ]; then printf 0123456789 > \"$2\";"
          " fi; shift; done\n",
          f);
    fclose(f);
    cr_assert_eq(chmod(cc, 0755), 0);
    setenv("RB_COMPILED_CACHE", dir, 1);
    setenv("CC", cc, 1);
    rb_router *r;
    rb_error err;
    cr_assert_eq(rb_router_create_ops(&rb_bench_compiled_ops, NULL, &r, &err), RB_OK);
    cr_assert_eq(rb_router_add(r, RB_GET, "/junk/:x", 8, 0, &err), RB_OK);
    cr_expect_eq(rb_router_build(r, &err), RB_EIO);
    cr_expect(strstr(err.message, "cannot load") != NULL, "%s", err.message);
    rb_router_destroy(r);
    rbt_remove_tree(dir);
    free(dir);
}

/* A node's param and template children are counted in 16 bits in the
 * generated tables: more than 65,535 at one node are refused (RB_ELIMIT),
 * never wrapped into another count (which would skip children). */
Test(compile, more_than_65535_templates_at_one_node_are_refused)
{
    rb_buf text = {0};
    for (int i = 0; i < 65536; i++) rb_buf_printf(&text, "GET /t/{x}.e%d\n", i);
    cr_assert(!text.failed);
    rb_route_table routes;
    rb_error err;
    cr_assert_eq(rb_route_table_parse("t.routes", text.data, text.len, &routes, &err), RB_OK, "%s",
                 err.message);
    rb_buf src = {0};
    cr_expect_eq(rb_compile_table(&routes, "t.routes", NULL, &src, &err), RB_ELIMIT);
    cr_expect(strstr(err.message, "65,535") != NULL, "%s", err.message);
    rb_buf_free(&src);
    rb_buf_free(&text);
    rb_route_table_free(&routes);
}

/* A param and a template of several params at one node, where a segment
 * matches the template's first piece but not its second: the walker tests
 * every child before going into the one that takes the segment, and the
 * template's failed test must not leave its captures in place of the
 * param's (either child may be tried first). */
Test(compile, one_taker_among_equal_ranks_keeps_its_own_captures)
{
    static const char *const tables[] = {
        "GET /a/:id\nGET /a/{x}-{y}_{z}.json/c\n",
        "GET /a/:id/c\nGET /a/{x}-{y}_{z}.json\n",
    };
    static const char *const paths[] = {"/a/p-q.json", "/a/p-q.json/c", "/a/p-q_r.json",
                                        "/a/p-q_r.json/c", "/a/p-q-q.json/c"};
    for (size_t t = 0; t < 2; t++) {
        rb_route_table routes = rbt_parse_routes(tables[t]);
        rb_router *r = build_from(&routes, &rb_bench_compiled_ops, tables[t]);
        rb_router *lin = build_from(&routes, &rb__linear_ops, tables[t]);
        for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++)
            rbt_expect_like(r, lin, RB_GET, paths[p], strlen(paths[p]), tables[t]);
        rb_match m;
        cr_assert_eq(rbt_lookup(r, "GET", t ? "/a/p-q.json/c" : "/a/p-q.json", &m), RB_FOUND);
        cr_expect_eq(m.route_id, 0u, "%s", tables[t]);
        cr_expect_eq(m.nparams, 1u);
        cr_expect_eq(m.params[0].offset, 3u);
        cr_expect_eq(m.params[0].len, 8u, "the param takes all of p-q.json");
        rb_router_destroy(r);
        rb_router_destroy(lin);
        rb_route_table_free(&routes);
    }
}

/* Static segments that differ only in a word's top byte ("authorizations"
 * and "authori]ations": byte 7) shared every low bit of their hash, since
 * a product carries a difference only upwards; in a small table they sat
 * in one bucket and collided under every seed, so the fuzzer's 5-route
 * table was refused as "no perfect hash found" (without its file's name).
 * The hash now spreads every bit; the table compiles and agrees with
 * linear, and the siblings differing in each byte of their first words
 * do too. */
Test(compile, regression_202_keys_differing_in_a_top_byte_get_a_perfect_hash)
{
    static const char text[] = "GET /authorizations\nGET /authorizations/:id\n"
                               "POST /authorizations\nDELETE /authori]ations/:id\n"
                               "GET /authsssssGETssss\n";
    rb_route_table routes;
    rb_error err;
    cr_assert_eq(rb_route_table_parse("top.routes", text, sizeof text - 1, &routes, &err), RB_OK,
                 "%s", err.message);
    rb_buf src = {0};
    cr_expect_eq(rb_compile_table(&routes, "top.routes", NULL, &src, &err), RB_OK, "%s",
                 err.message);
    rb_buf_free(&src);
    rb_request_table reqs;
    rb_reqgen_config qc;
    rb_reqgen_config_init(&qc);
    rb_reqgen_report rep;
    cr_assert_eq(rb_requests_generate(&routes, &qc, &reqs, &rep, &err), RB_OK, "%s", err.message);
    agree_on(&routes, &reqs, "top.routes");
    rb_route_table_free(&routes);
    rb_request_table_free(&reqs);

    /* 16-byte siblings, each pair differing in one byte of the first two words */
    char big[8192];
    size_t w = 0;
    w += (size_t)snprintf(big + w, sizeof big - w, "GET /x/abcdefghijklmnop\n");
    for (int b = 0; b < 16; b++) {
        char word[17] = "abcdefghijklmnop";
        word[b] = (char)(word[b] ^ 0x20); /* upper case at byte b */
        w += (size_t)snprintf(big + w, sizeof big - w, "GET /x/%s\n", word);
        w += (size_t)snprintf(big + w, sizeof big - w, "GET /y%d/%s\n", b, word);
    }
    cr_assert_eq(rb_route_table_parse("bytes.routes", big, w, &routes, &err), RB_OK, "%s",
                 err.message);
    cr_assert_eq(rb_requests_generate(&routes, &qc, &reqs, &rep, &err), RB_OK, "%s", err.message);
    agree_on(&routes, &reqs, "bytes.routes");
    rb_route_table_free(&routes);
    rb_request_table_free(&reqs);
}

/* Static children are found in their node's own table (up to 256 of them,
 * keyed by their first 16 bytes and their length) or in the table shared
 * by all (a node with more, or whose children no multiplier separates):
 * children that share their first 16 bytes and differ in length, two of
 * one length that differ only past byte 16 (/c: no table of its own can
 * tell them apart), and a node of 300 children, each beside a param that
 * must take what no static child does. */
Test(compile, static_children_in_own_and_shared_tables_agree_with_linear)
{
    char text[16384];
    size_t n = 0;
    n += (size_t)snprintf(text + n, sizeof text - n,
                          "GET /a/AvailablePhoneNumbers\n"      /* 0 */
                          "GET /a/AvailablePhoneNumbers.json\n" /* 1 */
                          "GET /a/AvailablePhoneNumbersX\n"     /* 2 */
                          "GET /a/AvailablePhoneNumbersY/:id\n" /* 3 */
                          "GET /a/AvailablePhone\n"             /* 4 */
                          "GET /a/:other\n" /* 5 */);
    for (int i = 0; i < 300; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "GET /b/child-%d\n", i); /* 6.. */
    n += (size_t)snprintf(text + n, sizeof text - n,
                          "GET /b/:id\n"                    /* 306 */
                          "GET /c/AvailablePhoneNumbersX\n" /* 307 */
                          "GET /c/AvailablePhoneNumbersY\n" /* 308 */
                          "GET /c/:id\n");                  /* 309 */
    cr_assert_lt(n, sizeof text);
    rb_route_table routes = rbt_parse_routes(text);
    rb_router *r = build_from(&routes, &rb_bench_compiled_ops, "own and shared tables");
    rb_router *lin = build_from(&routes, &rb__linear_ops, "own and shared tables");
    static const struct {
        const char *path;
        uint32_t route;
    } hits[] = {
        {"/a/AvailablePhoneNumbers", 0},
        {"/a/AvailablePhoneNumbers.json", 1},
        {"/a/AvailablePhoneNumbersX", 2},
        {"/a/AvailablePhoneNumbersY/7", 3},
        {"/a/AvailablePhone", 4},
        {"/a/AvailablePhoneNumbers.jsox", 5},
        {"/a/AvailablePhoneNumbersZ", 5},
        {"/a/AvailablePhoneNumber", 5},
        {"/a/AvailablePhoneNumbersY", 5},
        {"/b/child-0", 6},
        {"/b/child-299", 305},
        {"/b/child-300", 306},
        {"/b/child-29", 35},
        {"/b/AvailablePhone", 306},
        {"/c/AvailablePhoneNumbersX", 307},
        {"/c/AvailablePhoneNumbersY", 308},
        {"/c/AvailablePhoneNumbersZ", 309},
        {"/c/AvailablePhoneNumbers", 309},
    };
    for (size_t i = 0; i < sizeof hits / sizeof hits[0]; i++) {
        rb_match m;
        cr_assert_eq(rbt_lookup(r, "GET", hits[i].path, &m), RB_FOUND, "%s", hits[i].path);
        cr_expect_eq(m.route_id, hits[i].route, "%s: route %u", hits[i].path, m.route_id);
        for (int meth = 0; meth < RB_METHOD_COUNT; meth++)
            rbt_expect_like(r, lin, meth, hits[i].path, strlen(hits[i].path), "own and shared");
    }
    static const char *const misses[] = {"/a/AvailablePhoneNumbersY/7/x", "/b/child-1/x", "/c"};
    for (size_t i = 0; i < sizeof misses / sizeof misses[0]; i++) {
        rb_match m;
        cr_expect_eq(rbt_lookup(r, "GET", misses[i], &m), RB_NOT_FOUND, "%s", misses[i]);
    }
    rb_router_destroy(r);
    rb_router_destroy(lin);
    rb_route_table_free(&routes);
}

/* The walk keeps up to 64 places to come back to (a node whose static
 * child it took and that has a param too) and recurses past them: a path
 * of 70 such levels, whose only route is found by coming back to the
 * root's param. */
Test(compile, coming_back_past_the_64_kept_places_finds_the_route)
{
    static char text[65536], path[512];
    size_t n = 0, pn = 0;
    n += (size_t)snprintf(text + n, sizeof text - n, "GET /:p"); /* 0: /:p/a^69/q */
    for (int i = 0; i < 69; i++) n += (size_t)snprintf(text + n, sizeof text - n, "/a");
    n += (size_t)snprintf(text + n, sizeof text - n, "/q\nGET ");
    for (int i = 0; i < 70; i++) n += (size_t)snprintf(text + n, sizeof text - n, "/a");
    n += (size_t)snprintf(text + n, sizeof text - n, "/x\n"); /* 1: /a^70/x */
    for (int k = 1; k < 70; k++) {                            /* 2..70: /a^k/:p */
        n += (size_t)snprintf(text + n, sizeof text - n, "GET ");
        for (int i = 0; i < k; i++) n += (size_t)snprintf(text + n, sizeof text - n, "/a");
        n += (size_t)snprintf(text + n, sizeof text - n, "/:p\n");
    }
    cr_assert_lt(n, sizeof text);
    for (int i = 0; i < 70; i++) pn += (size_t)snprintf(path + pn, sizeof path - pn, "/a");
    pn += (size_t)snprintf(path + pn, sizeof path - pn, "/q");
    rb_route_table routes = rbt_parse_routes(text);
    rb_router *r = build_from(&routes, &rb_bench_compiled_ops, "70 levels");
    rb_router *lin = build_from(&routes, &rb__linear_ops, "70 levels");
    rb_match m;
    cr_assert_eq(rbt_lookup(r, "GET", path, &m), RB_FOUND);
    cr_expect_eq(m.route_id, 0u, "route %u", m.route_id);
    cr_expect_eq(m.nparams, 1u);
    cr_expect_eq(m.params[0].offset, 1u);
    cr_expect_eq(m.params[0].len, 1u);
    rbt_expect_like(r, lin, RB_GET, path, pn, "70 levels");
    rbt_expect_like(r, lin, RB_POST, path, pn, "70 levels");
    path[pn - 1] = 'x'; /* /a^70/x */
    cr_assert_eq(rbt_lookup(r, "GET", path, &m), RB_FOUND);
    cr_expect_eq(m.route_id, 1u, "route %u", m.route_id);
    path[pn - 1] = 'z'; /* /a^70/z: /a^69/:p takes the 70th a, then nothing takes z */
    cr_expect_eq(rbt_lookup(r, "GET", path, &m), RB_NOT_FOUND);
    rbt_expect_like(r, lin, RB_GET, path, pn, "70 levels");
    rb_router_destroy(r);
    rb_router_destroy(lin);
    rb_route_table_free(&routes);
}

/* A one-param template's bytes after `{}` are compared as one word when
 * there are at most 8 of them and 8 bytes of the path end where the
 * segment does; byte by byte otherwise (a longer suffix, a segment ending
 * within the path's first 8 bytes). */
Test(compile, template_suffixes_as_a_word_and_byte_by_byte)
{
    static const char text[] = "GET /{id}.json\n"            /* 0 */
                               "GET /f/{id}.tar.gz.backup\n" /* 1: 14 bytes after {} */
                               "GET /f/{id}.json\n"          /* 2 */
                               "GET /f/:x\n";                /* 3 */
    static const struct {
        const char *path;
        int outcome;
        uint32_t route, offset, len;
    } cases[] = {
        {"/1.json", RB_FOUND, 0, 1, 1},
        {"/12345.json", RB_FOUND, 0, 1, 5},
        {"/12345.jsox", RB_NOT_FOUND, 0, 0, 0},
        {"/1.jsox", RB_NOT_FOUND, 0, 0, 0},
        {"/f/a.json", RB_FOUND, 2, 3, 1},
        {"/f/a.jsox", RB_FOUND, 3, 3, 6},
        {"/f/a.tar.gz.backup", RB_FOUND, 1, 3, 1},
        {"/f/a.tar.gz.backuq", RB_FOUND, 3, 3, 15},
        {"/f/.json", RB_FOUND, 3, 3, 5},
    };
    rb_route_table routes = rbt_parse_routes(text);
    rb_router *r = build_from(&routes, &rb_bench_compiled_ops, "template suffixes");
    rb_router *lin = build_from(&routes, &rb__linear_ops, "template suffixes");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rb_match m;
        int got = rbt_lookup(r, "GET", cases[i].path, &m);
        cr_expect_eq(got, cases[i].outcome, "%s: %d", cases[i].path, got);
        if (got == RB_FOUND && cases[i].outcome == RB_FOUND) {
            cr_expect_eq(m.route_id, cases[i].route, "%s: route %u", cases[i].path, m.route_id);
            cr_expect_eq(m.params[0].offset, cases[i].offset, "%s", cases[i].path);
            cr_expect_eq(m.params[0].len, cases[i].len, "%s", cases[i].path);
        }
        rbt_expect_like(r, lin, RB_GET, cases[i].path, strlen(cases[i].path), "suffixes");
    }
    rb_router_destroy(r);
    rb_router_destroy(lin);
    rb_route_table_free(&routes);
}
