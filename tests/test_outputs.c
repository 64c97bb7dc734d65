/*
 * test_outputs.c — outputs that appear whole or not at all, and writers
 * that write only what readers read, through the built binary
 * and the table, import and router APIs:
 *
 *   - a requests file records its route table's fingerprint; verify, run
 *     and pair refuse a mismatched pair as an input error naming both;
 *   - corpus gen and the bundle, killed at every rename (strace fault
 *     injection), never leave a mixed state, and the next write cleans up;
 *   - import refuses trailing data and bytes the routes format cannot
 *     carry, the router front end refuses them at add, the writers refuse
 *     what would read back differently;
 *   - EXPECTED is a canonical route id of the table it is paired with;
 *   - run and pair compare every answer with linear's, as verify does.
 *
 * One numbered regression test per fixed bug (40-52), its cause in a line.
 */
#include "file.h"
#include "openapi.h"
#include "rb_test.h"
#include "router_impl.h"
#include "shipped.h"
#include "table.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[64];

static void setup(void)
{
    char *dir = rbt_tmpdir();
    snprintf(tmpdir, sizeof tmpdir, "%s", dir);
    free(dir);
}

static void teardown(void)
{
    rbt_remove_tree(tmpdir);
}

TestSuite(outputs, .init = setup, .fini = teardown, .timeout = 240);

#define RUN_FAST "--trials 2 --warmup 0 --min-trial-ms 0.05"

/* Run a shell command (printf-style) in tmpdir; "$RB" is routebench. */
static rbt_shell sh(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

static rbt_shell sh(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    return rbt_shell_run(tmpdir, cmd);
}

/* sh() that must exit 0; returns nothing. */
static void ok(const char *cmd)
{
    rbt_shell r = sh("%s", cmd);
    cr_assert_eq(r.status, 0, "%s: exit %d\n%s%s", cmd, r.status, r.out, r.err);
    rbt_shell_free(&r);
}

static const char *in_tmp(const char *name, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/%s", tmpdir, name);
    return buf;
}

static void write_text(const char *name, const char *text, size_t len)
{
    char path[256];
    FILE *f = fopen(in_tmp(name, path, sizeof path), "wb");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fwrite(text, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

static uint64_t routes_fp(const char *name)
{
    char path[256];
    rb_route_table t;
    rb_error err;
    cr_assert_eq(rb_route_table_read(in_tmp(name, path, sizeof path), &t, &err), RB_OK, "%s",
                 err.message);
    uint64_t fp = rb_route_table_fingerprint(&t);
    rb_route_table_free(&t);
    return fp;
}

static uint64_t requests_fp(const char *name)
{
    char path[256];
    rb_request_table t;
    rb_error err;
    cr_assert_eq(rb_request_table_read(in_tmp(name, path, sizeof path), &t, &err), RB_OK, "%s",
                 err.message);
    uint64_t fp = rb_request_table_fingerprint(&t);
    rb_request_table_free(&t);
    return fp;
}

static char *slurp(const char *name)
{
    char path[256], *data;
    size_t len;
    rb_error err;
    cr_assert_eq(rb_file_read(in_tmp(name, path, sizeof path), &data, &len, &err), RB_OK, "%s",
                 err.message);
    return data;
}

static bool exists(const char *name)
{
    char path[256];
    return access(in_tmp(name, path, sizeof path), F_OK) == 0;
}

/* The first entry of tmpdir whose name starts with prefix, or "". */
static const char *entry_with_prefix(const char *prefix, char *buf, size_t cap)
{
    buf[0] = '\0';
    DIR *d = opendir(tmpdir);
    cr_assert_not_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
            snprintf(buf, cap, "%s", e->d_name);
            break;
        }
    closedir(d);
    return buf;
}

static bool killed(const rbt_shell *r)
{
    return r->status == 128 + 9;
}

/* ---- 40: a requests file belongs to one route table -------------------------- */

/* Regression 40: a requests file did not say which route table it was made
 * for, so new routes beside old requests looked like a router that
 * disagrees (verify "397/4096 agree", exit 1) instead of a broken pair. */
Test(outputs, regression_40_a_mismatched_routes_and_requests_pair_is_an_input_error)
{
    ok("\"$RB\" corpus gen --routes 40 --seed 1 --shape params --out a >/dev/null && "
       "\"$RB\" corpus gen --routes 40 --seed 2 --shape params --out b >/dev/null");
    uint64_t fa = routes_fp("a.routes"), fb = routes_fp("b.routes");
    char want_a[32], want_b[32], line[64];
    snprintf(want_a, sizeof want_a, "%016llx", (unsigned long long)fa);
    snprintf(want_b, sizeof want_b, "%016llx", (unsigned long long)fb);

    /* the line that records it, as a comment older readers skip */
    char *text = slurp("a.requests");
    snprintf(line, sizeof line, "# routes xxh3:%s", want_a);
    cr_expect(strncmp(text, line, strlen(line)) == 0, "a.requests starts '%.60s'", text);
    free(text);

    static const char *const cmds[] = {
        "\"$RB\" verify --router radix --routes a.routes --requests b.requests",
        "\"$RB\" run --routers radix --baseline radix --routes a.routes --requests "
        "b.requests " RUN_FAST,
        "\"$RB\" pair --a radix --b hashseg --routes a.routes --requests b.requests " RUN_FAST};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        rbt_shell r = sh("%s", cmds[i]);
        cr_expect_eq(r.status, 2, "%s: exit %d (an input error)\n%s%s", cmds[i], r.status, r.out,
                     r.err);
        cr_expect(strstr(r.err, want_a) && strstr(r.err, want_b),
                  "%s: the message names both fingerprints %s and %s: %s", cmds[i], want_a, want_b,
                  r.err);
        cr_expect(strstr(r.out, "ns/lookup") == NULL, "%s measured a broken pair", cmds[i]);
        rbt_shell_free(&r);
    }

    /* a requests file without the line (written before it existed, like the
     * copies in /work/shared/corpora) is still accepted */
    ok("grep -v '^#' a.requests > legacy.requests && "
       "\"$RB\" verify --router radix --routes a.routes --requests legacy.requests");

    /* every shipped requests file records its routes */
    for (size_t c = 0; c < rb_shipped_count(); c++) {
        char rp[4096], qp[4096];
        rb_route_table routes;
        rb_error err;
        cr_assert_eq(rb_route_table_read(rbt_data_path(rb_shipped_name(c), "routes", rp, sizeof rp),
                                         &routes, &err),
                     RB_OK, "%s", err.message);
        snprintf(line, sizeof line, "# routes xxh3:%016llx",
                 (unsigned long long)rb_route_table_fingerprint(&routes));
        char *q;
        size_t len;
        cr_assert_eq(rb_file_read(rbt_data_path(rb_shipped_name(c), "requests", qp, sizeof qp), &q,
                                  &len, &err),
                     RB_OK);
        cr_expect(strncmp(q, line, strlen(line)) == 0, "%s starts '%.60s', not '%s'", qp, q, line);
        free(q);
        rb_route_table_free(&routes);
    }
}

/* ---- 41: corpus gen, killed at every rename --------------------------------------- */

#define NEEDS_STRACE()                                                                             \
    do {                                                                                           \
        if (!strace_path())                                                                        \
            cr_skip_test("strace is not installed (Debian package strace, in "                     \
                         "scripts/setup.sh): the fault-injection test needs it");                  \
    } while (0)

/* LeakSanitizer cannot run in a traced process (it uses ptrace itself):
 * the traced command of an ASan build runs without it. */
#define NO_LSAN "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" "

static const char *strace_path(void)
{
#ifdef RB_STRACE
    return access(RB_STRACE, X_OK) == 0 ? RB_STRACE : NULL;
#else
    return NULL;
#endif
}

/* Is the system call of strace line p (after the pid) one of set ("a,b")? */
static bool call_in_set(const char *p, const char *set)
{
    while (*p >= '0' && *p <= '9') p++;
    while (*p == ' ') p++;
    size_t n = strcspn(p, "(\n");
    if (p[n] != '(') return false;
    for (const char *s = set; *s;) {
        size_t k = strcspn(s, ",");
        if (k == n && strncmp(s, p, n) == 0) return true;
        s += k + (s[k] == ',');
    }
    return false;
}

/* How many calls of the system calls in set cmd makes (run under strace
 * with the options extra). */
static size_t count_calls(const char *cmd, const char *set, const char *extra)
{
    rbt_shell r = sh(NO_LSAN "'%s' -f -qq -o trace.txt -e trace=rename,renameat,renameat2 %s %s",
                     strace_path(), extra, cmd);
    cr_assert_eq(r.status, 0, "%s under strace: %s%s", cmd, r.out, r.err);
    rbt_shell_free(&r);
    char *t = slurp("trace.txt");
    size_t n = 0;
    for (const char *p = t; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
        n += call_in_set(p, set);
    free(t);
    return n;
}

/* cmd killed (SIGKILL) on entering its n-th call of the system calls in
 * set, before the call runs; extra: more strace options. */
static rbt_shell killed_at(const char *cmd, const char *set, size_t n, const char *extra)
{
    return sh(NO_LSAN "'%s' -f -qq -o /dev/null %s -e inject=%s:signal=KILL:when=%zu %s",
              strace_path(), extra, set, n, cmd);
}

#define RENAMES "rename,renameat,renameat2"

#define GEN_NEW "\"$RB\" corpus gen --routes 60 --seed 2 --shape mixed --out p"

/* Regression 41: corpus gen renamed .routes and then .requests: a kill
 * between the two left new routes beside old requests. */
Test(outputs,
     regression_41_corpus_gen_killed_at_any_rename_never_pairs_new_routes_with_old_requests)
{
    NEEDS_STRACE();
    ok("\"$RB\" corpus gen --routes 60 --seed 1 --shape mixed --out old >/dev/null && " GEN_NEW
       " >/dev/null && mv p.routes new.routes && mv p.requests new.requests");
    uint64_t old_r = routes_fp("old.routes"), new_r = routes_fp("new.routes");
    uint64_t old_q = requests_fp("old.requests"), new_q = requests_fp("new.requests");
    ok("cp old.routes p.routes && cp old.requests p.requests");
    size_t renames = count_calls(GEN_NEW " >/dev/null", RENAMES, "");
    cr_assert_geq(renames, 2u, "the two files are renamed into place");
    for (size_t n = 1; n <= renames + 1; n++) {
        ok("cp old.routes p.routes && cp old.requests p.requests");
        rbt_shell r = killed_at(GEN_NEW, RENAMES, n, "");
        cr_expect(n > renames ? r.status == 0 : killed(&r), "rename %zu: exit %d %s", n, r.status,
                  r.err);
        rbt_shell_free(&r);
        uint64_t fr = routes_fp("p.routes"), fq = requests_fp("p.requests");
        cr_expect(fr == old_r || fr == new_r, "rename %zu: p.routes is neither old nor new", n);
        cr_expect(fq == old_q || fq == new_q, "rename %zu: p.requests is neither old nor new", n);
        cr_expect(!(fr == new_r && fq == old_q), "rename %zu: new routes beside old requests", n);
        if (fr == old_r && fq == new_q) {
            /* the pair the fingerprint line makes detectable: an input error */
            r = sh("\"$RB\" verify --router radix --routes p.routes --requests p.requests");
            cr_expect_eq(r.status, 2, "rename %zu: verify exit %d: %s%s", n, r.status, r.out,
                         r.err);
            rbt_shell_free(&r);
        }
        /* the next write cleans up what the killed one left */
        ok(GEN_NEW " >/dev/null");
        char left[256];
        cr_expect_str_eq(entry_with_prefix("p.routes.", left, sizeof left), "", "rename %zu", n);
        cr_expect_str_eq(entry_with_prefix("p.requests.", left, sizeof left), "", "rename %zu", n);
        cr_expect(routes_fp("p.routes") == new_r && requests_fp("p.requests") == new_q);
    }
}

/* ---- 42: the bundle, killed at every rename ----------------------------------------- */

#define BUNDLE_RUN                                                                                 \
    "\"$RB\" run --routers radix --baseline radix --scenarios params-100 " RUN_FAST " --out b"

static int bundle_seed(const char *dir)
{
    char name[256];
    snprintf(name, sizeof name, "%s/summary.json", dir);
    char *text = slurp(name);
    cJSON *j = cJSON_Parse(text);
    free(text);
    cr_assert_not_null(j, "%s does not parse", name);
    int seed = (int)cJSON_GetObjectItem(cJSON_GetObjectItem(j, "seeds"), "corpus")->valuedouble;
    cJSON_Delete(j);
    return seed;
}

/* b is exactly the old bundle, or wholly the new one: its report.md and
 * charts are what `report` renders from its summary.json and trials.csv,
 * and those two agree (report exits 0). */
static void expect_whole(size_t n, const char *how)
{
    rbt_shell r = sh("diff -r old b");
    bool old = r.status == 0;
    rbt_shell_free(&r);
    if (old) return;
    cr_expect_eq(bundle_seed("b"), 2, "%s rename %zu: b is neither old nor new", how, n);
    ok("rm -rf rendered && cp -r b rendered");
    r = sh("\"$RB\" report rendered");
    cr_expect_eq(r.status, 0, "%s rename %zu: summary.json and trials.csv of two runs: %s", how, n,
                 r.err);
    rbt_shell_free(&r);
    r = sh("diff -r b rendered");
    cr_expect_eq(r.status, 0, "%s rename %zu: report.md or a chart of another run: %s", how, n,
                 r.out);
    rbt_shell_free(&r);
}

/* Kill the bundle's writer at each of its calls in set (strace options
 * extra), and check what it leaves. */
static void kill_bundle_at_every_rename(const char *how, const char *set, const char *extra)
{
    ok("rm -rf b b.* && cp -r old b");
    size_t renames = count_calls(BUNDLE_RUN " --seed 2 >/dev/null 2>&1", set, extra);
    cr_assert_geq(renames, 1u, "%s", how);
    for (size_t n = 1; n <= renames + 1; n++) {
        ok("rm -rf b b.* && cp -r old b");
        rbt_shell r = killed_at(BUNDLE_RUN " --seed 2", set, n, extra);
        cr_expect(n > renames ? r.status == 0 : killed(&r), "%s rename %zu: exit %d %s", how, n,
                  r.status, r.err);
        rbt_shell_free(&r);
        if (exists("b")) {
            expect_whole(n, how);
        } else {
            /* only between the two renames of the fallback: the old bundle
             * waits beside, whole, and the next write puts it back */
            char aside[256];
            entry_with_prefix("b.old.", aside, sizeof aside);
            cr_expect_neq(aside[0], '\0', "%s rename %zu: no b and no b.old.*", how, n);
            ok("\"$RB\" report b >/dev/null");
            r = sh("diff -r old b");
            cr_expect_eq(r.status, 0, "%s rename %zu: the old bundle came back changed: %s", how, n,
                         r.out);
            rbt_shell_free(&r);
        }
        ok(BUNDLE_RUN " --seed 3 >/dev/null 2>&1");
        char left[256];
        cr_expect_str_eq(entry_with_prefix("b.", left, sizeof left), "",
                         "%s rename %zu: the next write left %s", how, n, left);
        cr_expect_eq(bundle_seed("b"), 3);
    }
}

/* Regression 42: the bundle wrote summary.json, then trials.csv, then the
 * rendered files, each renamed on its own: a kill between two renames left
 * a directory mixing two runs. */
Test(outputs, regression_42_a_bundle_killed_at_any_rename_is_the_old_one_or_the_new_one)
{
    NEEDS_STRACE();
    ok(BUNDLE_RUN " --seed 1 >/dev/null 2>&1 && mv b old");
    cr_assert_eq(bundle_seed("old"), 1);
    kill_bundle_at_every_rename("exchange:", RENAMES, "");
    /* a file system without RENAME_EXCHANGE: old aside, new in, old removed */
    kill_bundle_at_every_rename("fallback:", "rename,renameat", "-e inject=renameat2:error=EINVAL");
}

/* ---- 43: what a killed writer left is cleaned up by the next write ---------------- */

/* Regression 43: temporary files of a killed writer (PATH.tmp.XXXXXX) were
 * left behind for good. */
Test(outputs, regression_43_the_next_write_cleans_up_what_a_killed_writer_left)
{
    ok("\"$RB\" corpus gen --routes 20 --seed 1 --shape static --out p >/dev/null");
    /* ours: PATH.tmp. and six letters or digits; not ours: anything else */
    ok("echo x > p.routes.tmp.AbC123 && echo x > p.requests.tmp.z9Z9z9 && "
       "echo keep > p.routes.tmp.abc && echo keep > p.routes.tmpAbC123");
    ok("\"$RB\" corpus gen --routes 20 --seed 2 --shape static --out p >/dev/null");
    cr_expect(!exists("p.routes.tmp.AbC123") && !exists("p.requests.tmp.z9Z9z9"));
    cr_expect(exists("p.routes.tmp.abc") && exists("p.routes.tmpAbC123"), "not ours: kept");

    ok(BUNDLE_RUN " >/dev/null 2>&1");
    ok("mkdir b.tmp.Qw3rty && echo x > b.tmp.Qw3rty/summary.json && mkdir b.old.Xy12Zz");
    ok("\"$RB\" report b >/dev/null");
    cr_expect(!exists("b.tmp.Qw3rty") && !exists("b.old.Xy12Zz"));
    /* killed between the fallback's two renames: b is missing and the old
     * one waits beside; the next write puts it back first */
    ok("cp -r b saved && mv b b.old.Ab12Cd");
    ok("\"$RB\" report b >/dev/null");
    cr_expect(exists("b/summary.json") && !exists("b.old.Ab12Cd"));
    rbt_shell r = sh("diff -r saved b");
    cr_expect_eq(r.status, 0, "%s", r.out);
    rbt_shell_free(&r);
}

/* ---- 44-48: import and add refuse what a routes file cannot carry ------------------ */

static int import(const char *name, const char *doc, size_t len, rb_route_table *t, rb_error *err)
{
    memset(err, 0, sizeof *err);
    int rc = rb_openapi_import(name, doc, len, t, NULL, err);
    if (rc == RB_OK) rb_route_table_free(t);
    return rc;
}

#define DOC(paths) "{\"openapi\": \"3.0.0\", \"paths\": {" paths "}}"

/* Importing doc is RB_EFORMAT with a message holding both says and also
 * (also may be NULL). */
static void expect_import_refused(const char *name, const char *doc, const char *says,
                                  const char *also)
{
    rb_route_table t;
    rb_error err;
    cr_expect_eq(import(name, doc, strlen(doc), &t, &err), RB_EFORMAT, "%s accepted: %s", name,
                 doc);
    cr_expect(strstr(err.message, says) && (!also || strstr(err.message, also)),
              "%s: '%s' lacks '%s' or '%s'", name, err.message, says, also ? also : "");
}

/* `corpus import` of doc fails (exit 2) and writes no routes file. */
static void expect_import_writes_nothing(const char *doc)
{
    write_text("doc.json", doc, strlen(doc));
    rbt_shell r = sh("\"$RB\" corpus import --openapi doc.json --out doc.routes");
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect(!exists("doc.routes"));
    rbt_shell_free(&r);
}

/* Regression 44: the JSON parser stopped after the document and the
 * importer ignored what followed (cJSON without require_null_terminated). */
Test(outputs, regression_44_trailing_data_after_a_json_document_is_refused)
{
    static const struct {
        const char *doc, *where;
    } cases[] = {
        {DOC("\"/a\": {\"get\": {}}") " garbage", "doc.json:1:52:"},
        {DOC("\"/a\": {\"get\": {}}") "\n{}", "doc.json:2:1:"},
        {DOC("\"/a\": {\"get\": {}}") "}", "doc.json:1:51:"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_import_refused("doc.json", cases[i].doc, cases[i].where, "trailing data");
    /* blanks after the document are not data */
    rb_route_table t;
    rb_error err;
    const char *fine = DOC("\"/a\": {\"get\": {}}") " \n\t\r\n";
    cr_expect_eq(import("doc.json", fine, strlen(fine), &t, &err), RB_OK, "%s", err.message);
}

/* Regression 45: anything after the YAML document must not be ignored
 * either (the rule is the JSON one). */
Test(outputs, regression_45_data_after_a_yaml_document_is_refused)
{
    static const struct {
        const char *doc, *where;
    } cases[] = {
        {"openapi: 3.0.0\npaths:\n  /a: {get: {}}\n...\ngarbage\n", "doc.yaml:5:1:"},
        {"openapi: 3.0.0\npaths:\n  /a: {get: {}}\n---\nopenapi: 3.0.0\n", "doc.yaml:5:"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_import_refused("doc.yaml", cases[i].doc, cases[i].where, NULL);
}

/* A router refuses pattern p[0, len) at add with RB_EPATTERN at offset. */
static void expect_refused_at_add(const char *p, size_t len, size_t offset)
{
    for (size_t i = 0; i < rb_registry_count(); i++) {
        rb_router *r;
        rb_error err;
        cr_assert_eq(rb_router_create_ops(rb_registry_at(i), NULL, &r, &err), RB_OK);
        cr_expect_eq(rb_router_add(r, RB_GET, p, len, 0, &err), RB_EPATTERN, "%s took it",
                     rb_ops_name(rb_registry_at(i)));
        cr_expect_eq(err.offset, offset, "%s: offset %zu: %s", rb_ops_name(rb_registry_at(i)),
                     err.offset, err.message);
        rb_router_destroy(r);
    }
}

/* Regression 46: cJSON ends a string at \u0000, so "/a\u0000x" and
 * "/a\u0000y" were imported as two "GET /a" (a duplicate, exit 0). */
Test(outputs, regression_46_a_nul_in_a_path_is_refused_at_import_and_at_add)
{
    const char *json = DOC("\"/a\\u0000x\": {\"get\": {}}, \"/a\\u0000y\": {\"get\": {}}");
    const char *yaml = "openapi: 3.0.0\npaths:\n  \"/a\\0x\": {get: {}}\n  \"/a\\0y\": {get: {}}\n";
    expect_import_refused("doc.json", json, "doc.json:1:35:", "NUL");
    expect_import_refused("doc.yaml", yaml, "doc.yaml:3:3:", "NUL");
    expect_refused_at_add("/a\0x", 4, 2);
    expect_import_writes_nothing(json);
}

/* Regression 47: a tab in an OpenAPI path was written raw, so the written
 * routes file could not be read back ("/c\t/x" is two fields). */
Test(outputs, regression_47_a_tab_in_a_path_is_refused_at_import_and_at_add)
{
    const char *json = DOC("\"/c\\t/x\": {\"get\": {}}");
    const char *yaml = "openapi: 3.0.0\npaths:\n  \"/c\\t/x\": {get: {}}\n";
    expect_import_refused("doc.json", json, "paths[\"/c\\t/x\"]", "byte 2");
    expect_import_refused("doc.yaml", yaml, "paths[\"/c\\t/x\"]", "byte 2");
    expect_refused_at_add("/c\t/x", 5, 2);
    expect_import_writes_nothing(json);
}

/* Regression 48: "/b\r" was written raw and read back as "/b" (the reader
 * drops a CR before LF), so import printed one fingerprint and the file
 * had another. */
Test(outputs, regression_48_a_carriage_return_in_a_path_is_refused_at_import_and_at_add)
{
    const char *json = DOC("\"/b\\r\": {\"get\": {}}");
    expect_import_refused("doc.json", json, "paths[\"/b\\r\"]", "byte 2");
    expect_refused_at_add("/b\r", 3, 2);
    /* a routes line "GET /b\r\r\n" holds the pattern "/b\r": refused too */
    rb_route_table t;
    rb_error err;
    cr_expect_eq(rb_route_table_parse("x.routes", "GET /b\r\r\n", 9, &t, &err), RB_EPATTERN);
    cr_expect_eq(err.line, 1u);
    expect_import_writes_nothing(json);
}

/* ---- 49: a written table reads back to the same fingerprint ----------------------- */

/* Regression 49: the table writers wrote any bytes, so a table holding a
 * CR, a tab or a space read back as another table (or not at all). */
Test(outputs, regression_49_a_writer_writes_only_what_reads_back_the_same)
{
    static const char *const patterns[] = {"/b\r", "/c\t/x", "/a b", "/a\n", "/ok/{id}"};
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
        rb_route_table t = {0}, back;
        rb_error err;
        cr_assert_eq(rb_route_table_append(&t, RB_GET, patterns[i], strlen(patterns[i]), 0), RB_OK);
        char path[256];
        in_tmp("w.routes", path, sizeof path);
        unlink(path);
        if (rb_route_table_write(path, &t, NULL, &err) == RB_OK) {
            cr_expect_eq(rb_route_table_read(path, &back, &err), RB_OK, "pattern %zu: %s", i,
                         err.message);
            cr_expect_eq(rb_route_table_fingerprint(&back), rb_route_table_fingerprint(&t),
                         "pattern %zu was written and reads back as another table", i);
            rb_route_table_free(&back);
        } else {
            cr_expect(!exists("w.routes"), "pattern %zu: refused, yet a file is there", i);
        }
        rb_route_table_free(&t);
    }
    static const char *const paths[] = {"/a b", "/x\r", "/y\t", "/ok", "/nul\0"};
    static const size_t lens[] = {4, 3, 3, 3, 5};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        rb_request_table t = {0}, back;
        rb_error err;
        cr_assert_eq(rb_request_table_append(&t, RB_GET, paths[i], lens[i], -1, 0), RB_OK);
        char path[256];
        in_tmp("w.requests", path, sizeof path);
        unlink(path);
        if (rb_request_table_write(path, &t, &err) == RB_OK) {
            cr_expect_eq(rb_request_table_read(path, &back, &err), RB_OK, "path %zu: %s", i,
                         err.message);
            cr_expect_eq(rb_request_table_fingerprint(&back), rb_request_table_fingerprint(&t),
                         "path %zu was written and reads back as another table", i);
            rb_request_table_free(&back);
        } else {
            cr_expect(!exists("w.requests"), "path %zu: refused, yet a file is there", i);
        }
        rb_request_table_free(&t);
    }
}

/* ---- 50, 51: EXPECTED -------------------------------------------------------------- */

/* Regression 50: an EXPECTED id beyond the route table was counted as the
 * router's disagreement (exit 1), not as a broken pair of files. */
Test(outputs, regression_50_an_expected_id_beyond_the_route_count_is_an_input_error)
{
    write_text("x.routes", "GET /a\nGET /b\n", 14);
    write_text("x.requests", "GET /a 0\nGET /b 5\n", 18);
    static const char *const cmds[] = {
        "\"$RB\" verify --router radix --routes x.routes --requests x.requests",
        "\"$RB\" run --routers radix --baseline radix --routes x.routes --requests "
        "x.requests " RUN_FAST,
        "\"$RB\" pair --a radix --b hashseg --routes x.routes --requests x.requests " RUN_FAST};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        rbt_shell r = sh("%s", cmds[i]);
        cr_expect_eq(r.status, 2, "%s: exit %d\n%s%s", cmds[i], r.status, r.out, r.err);
        cr_expect(strstr(r.err, "x.requests:2:") && strstr(r.err, "EXPECTED 5"),
                  "%s: the message names the file, the line and the id: %s", cmds[i], r.err);
        rbt_shell_free(&r);
    }
}

/* Regression 51: EXPECTED was read with strtol, so "+2", "0002" and " 2"
 * passed as route id 2. */
Test(outputs, regression_51_expected_is_a_canonical_route_id)
{
    static const char *const bad[] = {"+2", "0002", "00",         "-0", "-01",
                                      "2x", "0x2",  "2147483648", "-3", "99999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[64];
        int n = snprintf(text, sizeof text, "GET /a 0\nGET /b %s\n", bad[i]);
        rb_request_table t;
        rb_error err = {0};
        cr_expect_eq(rb_request_table_parse("x.requests", text, (size_t)n, &t, &err), RB_EFORMAT,
                     "'%s' accepted", bad[i]);
        cr_expect_eq(err.line, 2u, "'%s': line %zu", bad[i], err.line);
        cr_expect(strstr(err.message, "x.requests:2:") != NULL, "%s", err.message);
    }
    static const char *const good[] = {"0", "7", "-1", "-2", "2147483647"};
    static const int32_t want[] = {0, 7, -1, -2, 2147483647};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char text[64];
        int n = snprintf(text, sizeof text, "GET /b %s\n", good[i]);
        rb_request_table t;
        rb_error err;
        cr_assert_eq(rb_request_table_parse("x.requests", text, (size_t)n, &t, &err), RB_OK,
                     "'%s': %s", good[i], err.message);
        cr_expect_eq(t.reqs[0].expected, want[i]);
        rb_request_table_free(&t);
    }
}

/* ---- 52: run and pair check every answer ----------------------------------------- */

/* Regression 52: run and pair compared only the outcome and route id with
 * EXPECTED (and printed "checksums differ"), so a router with a wrong span
 * or a wrong 405 mask passed with exit 0. */
Test(outputs, regression_52_run_and_pair_fail_a_router_with_a_wrong_span_or_mask)
{
    static const struct {
        const char *args;
        int status;
        const char *says;
    } cases[] = {
        {"run --router-lib " RB_WRONG_PLUGIN " --routers wrongspan@" RB_WRONG_PLUGIN
         " --baseline radix --scenarios params-100 " RUN_FAST,
         1, "], got 200 route"},
        {"run --router-lib " RB_WRONG_PLUGIN " --routers wrongmask@" RB_WRONG_PLUGIN
         " --baseline radix --scenarios params-100 " RUN_FAST,
         1, "allow"},
        {"pair --a radix --b wrongspan@" RB_WRONG_PLUGIN " --scenarios params-100 " RUN_FAST, 1,
         "], got 200 route"},
        {"pair --a wrongmask@" RB_WRONG_PLUGIN " --b radix --scenarios params-100 " RUN_FAST, 1,
         "allow"},
        /* a peer is measured and its disagreements counted, not failed */
        {"run --router-lib " RB_WRONG_PLUGIN " --routers peerspan@" RB_WRONG_PLUGIN
         " --baseline radix --scenarios params-100 " RUN_FAST,
         0, "a peer"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rbt_shell r = sh("\"$RB\" %s", cases[i].args);
        cr_expect_eq(r.status, cases[i].status, "%s: exit %d\n%s%s", cases[i].args, r.status, r.out,
                     r.err);
        char *out = rbt_unwrapped(r.out); /* the report wraps before 100 columns */
        cr_assert(out);
        cr_expect(strstr(out, "disagreed") != NULL, "%s: no disagreement shown: %s", cases[i].args,
                  r.out);
        cr_expect(strstr(out, cases[i].says) != NULL, "%s: '%s' not shown: %s", cases[i].args,
                  cases[i].says, r.out);
        /* the first differing request is shown once, in the verdict's
         * disagreement line (the session printed it a second time) */
        cr_expect(strstr(out, " requests; first: ") || strstr(out, " semantics); first: "),
                  "%s: the first differing request is shown: %s", cases[i].args, r.out);
        cr_expect(strstr(out, "first differing request") == NULL,
                  "%s: the first differing request is shown twice: %s", cases[i].args, r.out);
        free(out);
        rbt_shell_free(&r);
    }
}

/* ---- report DIR and a user's file; choose keeps its tables ----------------------------------- */

/* A file the bundle does not own (a PNG the user saved there) is left as it
 * is, and report says so; a directory that is not a bundle, or a bundle
 * holding a subdirectory, is still refused. */
Test(outputs, report_keeps_a_users_file_and_says_so_but_refuses_what_is_not_a_bundle)
{
    ok("\"$RB\" run --routers radix,hashseg --scenarios static-100 " RUN_FAST " --out b");
    ok("printf 'not a chart' > b/cost.png");
    rbt_shell r = sh("\"$RB\" report b");
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "left as they were (not files of the bundle): cost.png") != NULL, "%s",
              r.out);
    rbt_shell_free(&r);
    r = sh("cat b/cost.png && test -s b/report.html && test -s b/summary.json");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "not a chart");
    rbt_shell_free(&r);

    ok("mkdir b/sub");
    r = sh("\"$RB\" report b");
    cr_expect_eq(r.status, 2, "a subdirectory would be lost: %s", r.err);
    cr_expect(strstr(r.err, "sub") != NULL, "%s", r.err);
    rbt_shell_free(&r);

    ok("mkdir notabundle && printf x > notabundle/photo.png");
    r = sh("\"$RB\" report notabundle");
    cr_expect_eq(r.status, 2, "%s", r.err);
    rbt_shell_free(&r);
}

/* The fingerprint of the `routes_fingerprint` key in a summary.json text. */
static void fingerprint(const char *json, const char *key, char *out, size_t cap)
{
    const char *at = strstr(json, key);
    out[0] = '\0';
    if (at && (at = strchr(at + strlen(key), '"')) != NULL) snprintf(out, cap, "%.16s", at + 1);
}

/* choose measures tables it made (an OpenAPI import, generated requests):
 * they go into the bundle, whose sources name them and whose fingerprints
 * they reproduce when measured again. */
Test(outputs, choose_keeps_the_tables_it_measured_in_the_bundle)
{
    ok("\"$RB\" choose --routes \"" RB_SOURCE_DIR "/corpus/data/github.routes\" --routers "
       "radix,hashseg " RUN_FAST " --out c");
    rbt_shell r = sh("cat c/summary.json");
    cr_assert_eq(r.status, 0);
    cr_expect(strstr(r.out, "\"routes_source\":\t\"github.routes in the bundle, from the routes "
                            "file ") != NULL,
              "%s", r.out);
    cr_expect(strstr(r.out, "\"requests_source\":\t\"github.requests in the bundle, generated") !=
                  NULL,
              "%s", r.out);
    char rf[32], qf[32];
    fingerprint(r.out, "\"routes_fingerprint\"", rf, sizeof rf);
    fingerprint(r.out, "\"requests_fingerprint\"", qf, sizeof qf);
    rbt_shell_free(&r);
    r = sh("\"$RB\" choose --routes c/github.routes --requests c/github.requests --routers radix "
           "--trials 2 --warmup 0 --min-trial-ms 0.05 --json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    char rf2[32], qf2[32];
    fingerprint(r.out, "\"routes_fingerprint\"", rf2, sizeof rf2);
    fingerprint(r.out, "\"requests_fingerprint\"", qf2, sizeof qf2);
    cr_expect(*rf && strcmp(rf, rf2) == 0, "routes %s, kept file %s", rf, rf2);
    cr_expect(*qf && strcmp(qf, qf2) == 0, "requests %s, kept file %s", qf, qf2);
    rbt_shell_free(&r);
}
