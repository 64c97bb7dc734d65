/*
 * test_cli.c — the routebench command line as a user meets it:
 * conflicting or ignored flags are usage errors, empty inputs are errors,
 * outputs are checked before any measuring, every message starts
 * "routebench CMD:", --json documents parse, --version and `help CMD`,
 * --scenario and --scenarios on both run and pair, a duration estimate and
 * a line per router built, import and requests agree on --out, every --help
 * fits 79 columns.  Runs the built binary.
 */
#include "file.h"
#include "rb_test.h"
#include "router_impl.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct result {
    int status;
    char *out, *err; /* stdout, stderr */
} result;

static char tmpdir[64];

static void setup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/rb_test_cli.XXXXXX");
    cr_assert_not_null(mkdtemp(tmpdir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    cr_expect_eq(system(cmd), 0);
}

static char *slurp_path(const char *path)
{
    char *data;
    size_t len;
    rb_error err;
    cr_assert_eq(rb_file_read(path, &data, &len, &err), RB_OK, "%s", err.message);
    return data;
}

/* Run `routebench ARGS` (a shell word list) in tmpdir. */
static result rb(const char *args)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s/routebench' %s >out.txt 2>err.txt </dev/null", tmpdir,
             RB_BINARY_DIR, args);
    int st = system(cmd);
    cr_assert(st != -1 && WIFEXITED(st), "%s did not exit", cmd);
    char path[256];
    result r = {WEXITSTATUS(st), NULL, NULL};
    snprintf(path, sizeof path, "%s/out.txt", tmpdir);
    r.out = slurp_path(path);
    snprintf(path, sizeof path, "%s/err.txt", tmpdir);
    r.err = slurp_path(path);
    return r;
}

static void done(result *r)
{
    free(r->out);
    free(r->err);
}

static void write_file(const char *name, const char *text)
{
    char path[256];
    rb_error err;
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    cr_assert_eq(rb_file_write_atomic(path, text, strlen(text), &err), RB_OK, "%s", err.message);
}

/* Every line of stderr that is not indented starts "routebench CMD:". */
static void expect_prefix(const result *r, const char *cmd)
{
    char want[64];
    snprintf(want, sizeof want, "routebench %s: ", cmd);
    cr_expect(r->err[0] != '\0', "an error is printed for %s", cmd);
    for (const char *line = r->err; *line;) {
        size_t n = strcspn(line, "\n");
        if (n && line[0] != ' ')
            cr_expect(strncmp(line, want, strlen(want)) == 0, "'%.*s' lacks '%s'", (int)n, line,
                      want);
        line += n + (line[n] == '\n');
    }
}

#define RUN_FAST "--trials 2 --warmup 0 --min-trial-ms 0.05"

TestSuite(cli, .init = setup, .fini = teardown, .timeout = 120);

Test(cli, conflicting_and_ignored_flags_are_usage_errors)
{
    static const struct {
        const char *args, *cmd, *says;
    } cases[] = {
        {"verify --corpus github --routes a --requests b --router radix", "verify",
         "--corpus and --routes cannot be used together"},
        {"verify --all --router hashseg", "verify", "--all and --router cannot be used together"},
        {"verify --router radix --routes a", "verify", "--routes needs --requests as well"},
        {"run --routes a", "run", "--routes needs --requests as well"},
        {"run --trials 3 --trials 4", "run", "--trials is given twice"},
        {"pair --a radix", "pair", "needs --candidate SPEC"},
        {"pair --a radix --b radix --scenarios static-100", "pair", "name the same router"},
        {"run --json=yes", "run", "--json takes no value"},
        {"run --trails 3", "run", "did you mean --trials?"},
        {"report a b", "report", "one DIR only"},
        {"corpus check", "corpus check", "needs FILE.routes"},
        {"corpus gen --routes 10 --seed 1 --shape nope --out x", "corpus gen",
         "--shape: must be static, params"},
        {"corpus requests x.routes --count ' -1'", "corpus requests",
         "--count needs a whole number from 1 to"},
        {"corpus check x.routes --seed 9007199254740992", "corpus check",
         "--seed needs a whole number from 0 to 9007199254740991"},
        {"list stray", "list", "unexpected argument 'stray'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        result r = rb(cases[i].args);
        cr_expect_eq(r.status, 2, "%s: exit %d", cases[i].args, r.status);
        cr_expect(strstr(r.err, cases[i].says) != NULL, "%s: '%s' lacks '%s'", cases[i].args, r.err,
                  cases[i].says);
        expect_prefix(&r, cases[i].cmd);
        cr_expect_eq(r.out[0], '\0', "%s: nothing on stdout", cases[i].args);
        done(&r);
    }
}

Test(cli, empty_inputs_are_errors)
{
    write_file("empty.routes", "# no routes\n");
    write_file("empty.requests", "");
    write_file("one.routes", "GET /a\n");
    write_file("one.requests", "GET /a 0\n");
    result r = rb("verify --router hashseg --routes empty.routes --requests one.requests");
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "no routes: nothing to verify") != NULL, "%s", r.err);
    cr_expect(strstr(r.out, "0/0") == NULL, "no 0/0 agree: %s", r.out);
    done(&r);
    r = rb("verify --router hashseg --routes one.routes --requests empty.requests");
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "no requests: nothing to verify") != NULL, "%s", r.err);
    done(&r);
    r = rb("verify --router hashseg --routes one.routes --requests one.requests");
    cr_expect_eq(r.status, 0, "%s", r.err);
    done(&r);
    r = rb("corpus check empty.routes");
    cr_expect_eq(r.status, 1, "an empty table is not clean");
    cr_expect(strstr(r.out, "not clean") != NULL && strstr(r.out, "\nclean") == NULL, "%s", r.out);
    expect_prefix(&r, "corpus check");
    done(&r);
    r = rb("corpus check empty.routes --json");
    cr_expect_eq(r.status, 1);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "%s", r.out);
    cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(j, "ok")));
    cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(j, "empty")));
    cJSON_Delete(j);
    done(&r);
}

Test(cli, outputs_are_checked_before_anything_is_measured)
{
    write_file("afile", "x");
    static const char *const bad[] = {"run --out afile " RUN_FAST, "run --out afile/sub " RUN_FAST,
                                      "pair --a radix --b hashseg --out afile " RUN_FAST,
                                      "run --export-json nodir/x.json " RUN_FAST,
                                      "run --export-csv . " RUN_FAST};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        result r = rb(bad[i]);
        cr_expect_eq(r.status, 2, "%s", bad[i]);
        cr_expect(strstr(r.out, "ns/lookup") == NULL && strstr(r.err, "measuring") == NULL,
                  "%s measured before failing: %s", bad[i], r.out);
        expect_prefix(&r, strncmp(bad[i], "pair", 4) == 0 ? "pair" : "run");
        done(&r);
    }
    /* a missing directory is created, before the work */
    result r =
        rb("run --routers floor --baseline floor --scenarios static-100 --out new/dir " RUN_FAST);
    cr_expect_eq(r.status, 0, "%s", r.err);
    char path[256];
    snprintf(path, sizeof path, "%s/new/dir/summary.json", tmpdir);
    cr_expect_eq(access(path, R_OK), 0);
    done(&r);
}

Test(cli, json_documents_parse_and_name_their_schema)
{
    result r = rb("list --json");
    cr_expect_eq(r.status, 0);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "%s", r.out);
    cr_expect_str_eq(cJSON_GetObjectItem(j, "schema")->valuestring, "routebench-list");
    cJSON *routers = cJSON_GetObjectItem(j, "routers");
    cr_expect_geq(cJSON_GetArraySize(routers), 6);
    bool linear_ref = false;
    size_t generated = 0;
    for (cJSON *x = routers->child; x; x = x->next) {
        const char *name = cJSON_GetObjectItem(x, "name")->valuestring;
        if (strcmp(name, "linear") == 0)
            linear_ref = cJSON_IsTrue(cJSON_GetObjectItem(x, "reference"));
        /* a script that runs every router leaves the generated one out */
        if (cJSON_IsTrue(cJSON_GetObjectItem(x, "generated"))) {
            cr_expect_str_eq(name, "compiled");
            generated++;
        }
        cr_expect(cJSON_IsBool(cJSON_GetObjectItem(x, "generated")), "%s", name);
    }
    cr_expect(linear_ref);
    cr_expect_eq(generated, 1u);
    cr_expect_geq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "corpora")), 5);
    cJSON_Delete(j);
    done(&r);

    r = rb("verify --router hashseg --corpus github --json");
    cr_expect_eq(r.status, 0, "%s", r.err);
    j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "%s", r.out);
    cr_expect_str_eq(cJSON_GetObjectItem(j, "schema")->valuestring, "routebench-verify");
    cJSON *run = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "runs"), 0);
    cr_assert_not_null(run);
    cr_expect_eq(cJSON_GetObjectItem(run, "agree_linear")->valuedouble,
                 cJSON_GetObjectItem(run, "request_count")->valuedouble);
    cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(j, "ok")));
    cJSON_Delete(j);
    done(&r);

    /* run --json: summary.json's document on stdout, the tables on stderr;
     * --export-json and --export-csv write what --out writes */
    r = rb("run --routers floor --baseline floor --scenarios static-100 --json --out b "
           "--export-json e.json --export-csv e.csv " RUN_FAST);
    cr_expect_eq(r.status, 0, "%s", r.err);
    j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "stdout is one JSON document: %s", r.out);
    cr_expect_str_eq(cJSON_GetObjectItem(j, "schema")->valuestring, "routebench-summary");
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "scenarios")), 1);
    cJSON_Delete(j);
    cr_expect(strstr(r.err, "ns/lookup") != NULL, "the table went to stderr");
    char a[256], b[256];
    snprintf(a, sizeof a, "%s/b/summary.json", tmpdir);
    snprintf(b, sizeof b, "%s/e.json", tmpdir);
    char *x = slurp_path(a), *y = slurp_path(b);
    cr_expect_str_eq(x, y, "--export-json is summary.json");
    cr_expect_str_eq(x, r.out, "--json is summary.json");
    free(x), free(y);
    snprintf(a, sizeof a, "%s/b/trials.csv", tmpdir);
    snprintf(b, sizeof b, "%s/e.csv", tmpdir);
    x = slurp_path(a), y = slurp_path(b);
    cr_expect_str_eq(x, y, "--export-csv is trials.csv");
    free(x), free(y);
    done(&r);

    r = rb("pair --a linear --b floor --scenario static-100 --json " RUN_FAST);
    cr_expect_eq(r.status, 0, "%s", r.err);
    j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "%s", r.out);
    cr_expect_str_eq(cJSON_GetObjectItem(j, "baseline")->valuestring, "linear");
    cJSON_Delete(j);
    cr_expect(strstr(r.err, "pair: speed ratio candidate/baseline (b/a)") != NULL, "%s", r.err);
    done(&r);
}

/* How often the "exit status:" part of a help names status c: as its
 * first word on a line, or after ", ". */
static size_t exit_status_named(const char *help, char c)
{
    const char *at = strstr(help, "exit status:");
    size_t n = 0;
    if (!at) return 0;
    for (const char *p = at + 12; *p; p++) {
        if (p[0] != c || p[1] != ' ') continue;
        const char *q = p;
        while (q > at && q[-1] == ' ') q--;
        n += q[-1] == '\n' || q[-1] == ':' || (q[-1] == ',' && q - 1 < p);
    }
    return n;
}

Test(cli, version_and_help_cmd)
{
    result r = rb("--version");
    cr_expect_eq(r.status, 0);
    cr_expect(strncmp(r.out, "routebench 0.", 13) == 0, "%s", r.out);
    cr_expect(strstr(r.out, "\ncommit ") && strstr(r.out, "\ncompiler ") &&
                  strstr(r.out, "\nbuild type "),
              "%s", r.out);
    done(&r);
    static const char *const cmds[] = {
        "list",          "verify",          "run",           "choose",
        "pair",          "report",          "compare",       "history",
        "http",          "compile",         "corpus",        "corpus gen",
        "corpus check",  "corpus requests", "corpus import", "corpus profile",
        "corpus compare"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char args[128];
        snprintf(args, sizeof args, "help %s", cmds[i]);
        result h = rb(args);
        snprintf(args, sizeof args, "%s --help", cmds[i]);
        result d = rb(args);
        cr_expect_eq(h.status, 0, "%s", args);
        cr_expect_eq(d.status, 0, "%s", args);
        cr_expect_str_eq(h.out, d.out, "help %s is %s --help", cmds[i], cmds[i]);
        cr_expect(strstr(d.out, "usage: routebench ") == d.out, "%s", d.out);
        for (const char *line = d.out; *line;) {
            size_t n = strcspn(line, "\n");
            cr_expect_leq(n, 79, "%s: a %zu-column line: %.*s", args, n, (int)n, line);
            line += n + (line[n] == '\n');
        }
        done(&h);
        done(&d);
    }
    r = rb("help nosuch");
    cr_expect_eq(r.status, 2);
    expect_prefix(&r, "help");
    done(&r);
}

/* Every command's help names each exit status once: compile's named 4
 * twice, in its own statuses and in the one every command shares. */
Test(cli, regression_189_every_help_names_exit_status_4_once)
{
    static const char *const cmds[] = {"list",
                                       "verify",
                                       "run",
                                       "choose",
                                       "pair",
                                       "report",
                                       "compare",
                                       "history",
                                       "http",
                                       "compile",
                                       "corpus gen",
                                       "corpus check",
                                       "corpus import",
                                       "corpus requests",
                                       "corpus profile",
                                       "corpus compare"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char args[128];
        snprintf(args, sizeof args, "%s --help", cmds[i]);
        result d = rb(args);
        cr_expect_eq(exit_status_named(d.out, '4'), 1u, "%s:\n%s", args, d.out);
        cr_expect_eq(exit_status_named(d.out, '0'), 1u, "%s:\n%s", args, d.out);
        done(&d);
    }
}

/* list keeps to 100 columns: router summaries ran to 144 columns and each
 * peer that was not built repeated a 230-column reason (the reasons are
 * in --json). */
Test(cli, regression_191_list_keeps_to_100_columns)
{
    result r = rb("list");
    cr_expect_eq(r.status, 0, "%s", r.err);
    for (const char *line = r.out; *line;) {
        size_t n = strcspn(line, "\n");
        cr_expect_leq(n, 100u, "a %zu-column line: %.*s", n, (int)n, line);
        line += n + (line[n] == '\n');
    }
    cr_expect(strstr(r.out, "\n  hashseg  params catch-all - templates     hashed segments") !=
                  NULL,
              "%s", r.out);
    done(&r);
}

/* pair's summary shows the pairs the candidate won, as its heading says
 * (no row showed them), and keeps to 100 columns with long router names. */
Test(cli, regression_192_pair_summary_shows_wins_within_100_columns)
{
    result r = rb("pair --a hashseg --b auto --scenarios static-100,static-1000 --trials 5 "
                  "--warmup 0 --min-trial-ms 0.05");
    cr_expect_eq(r.status, 0, "%s", r.err);
    const char *sum = strstr(r.out, "pair: speed ratio candidate/baseline (b/a)");
    cr_assert(sum, "%s", r.out);
    cr_expect(strstr(sum, "\n  static-100 ") && strstr(sum, "\n  static-1000 "), "%s", sum);
    for (const char *line = sum; *line;) {
        size_t n = strcspn(line, "\n");
        cr_expect_leq(n, 100u, "a %zu-column line: %.*s", n, (int)n, line);
        char row[256];
        snprintf(row, sizeof row, "%.*s", (int)n, line);
        if (strncmp(row, "  static-", 9) == 0)
            cr_expect(strstr(row, "/5 ") != NULL, "no wins: %s", row);
        line += n + (line[n] == '\n');
    }
    done(&r);
}

/* A run's terminal report keeps to 100 columns with seven routers, the
 * limit and (where libr3 is built in) a peer that disagrees: its first
 * differing request was one line of 190 columns. */
Test(cli, regression_194_a_runs_report_keeps_to_100_columns)
{
    result l = rb("list");
    bool r3 = strstr(l.out, "\n  r3 ") != NULL;
    done(&l);
    char args[512];
    snprintf(args, sizeof args,
             "run --routers radix,glob,hashseg,ctrie,auto,linear,limit%s --scenarios twilio "
             "--trials 5 --warmup 0 --min-trial-ms 0.05",
             r3 ? ",r3" : "");
    result r = rb(args);
    cr_expect_eq(r.status, 0, "%s", r.err);
    if (r3) cr_expect(strstr(r.out, "first: ") != NULL, "%s", r.out);
    for (const char *line = r.out; *line;) {
        size_t n = strcspn(line, "\n");
        cr_expect_leq(n, 100u, "a %zu-column line: %.*s", n, (int)n, line);
        line += n + (line[n] == '\n');
    }
    done(&r);
}

Test(cli, run_and_pair_take_scenario_and_scenarios)
{
    static const char *const cmds[] = {"run --routers floor --baseline floor",
                                       "pair --a linear --b floor"};
    static const char *const opts[] = {"--scenario", "--scenarios"};
    for (size_t c = 0; c < 2; c++) {
        char args[512];
        snprintf(args, sizeof args, "%s --help", cmds[c]);
        result h = rb(args);
        cr_expect(strstr(h.out, "--scenarios, --scenario LIST") != NULL, "%s", h.out);
        done(&h);
        for (size_t o = 0; o < 2; o++) {
            snprintf(args, sizeof args, "%s %s static-100 " RUN_FAST, cmds[c], opts[o]);
            result r = rb(args);
            cr_expect_eq(r.status, 0, "%s: %s", args, r.err);
            cr_expect(strstr(r.out, "\nstatic-100: ") != NULL, "%s", args);
            done(&r);
        }
    }
}

/* Before any work: the estimate, then linear's warning, once, naming every
 * large table; then (not a terminal) one plain line per pass. */
Test(cli, an_estimate_first_then_a_line_per_pass_and_linear_warned_about_once)
{
    result r = rb("run --routers linear,hashseg --baseline hashseg --scenarios "
                  "static-10000,params-10000 " RUN_FAST);
    cr_expect_eq(r.status, 0, "%s", r.err);
    const char *est = strstr(r.err, "routebench run: estimated ");
    const char *warn = strstr(r.err, "routebench run: warning: linear (the reference) tries every "
                                     "route on each lookup, and static-10000, params-10000 have "
                                     "10000 routes or more");
    const char *p1 = strstr(r.err, "[1/2] static-10000: about ");
    const char *p2 = strstr(r.err, "[2/2] params-10000: about ");
    cr_expect(est && warn && p1 && p2, "%s", r.err);
    cr_expect(est < p1 && warn < p1 && p1 < p2, "estimate and warning before the work: %s", r.err);
    cr_expect(strstr(r.err, "leave it out with --routers hashseg") != NULL, "%s", r.err);
    cr_expect(warn && strstr(warn + 40, "warning: linear") == NULL, "warned once: %s", r.err);
    cr_expect(strstr(r.err, "building") == NULL, "no line per router in a log: %s", r.err);
    done(&r);
    r = rb("run --routers hashseg --baseline hashseg --scenarios static-10000 " RUN_FAST);
    cr_expect(strstr(r.err, "warning") == NULL, "no linear, no warning: %s", r.err);
    done(&r);
}

/* The docs quote the estimate's busy-machine note as the program prints
 * it: choosing.md kept "(a busy machine: short trials will be measured
 * again)" after the note became "trials may run short and be measured
 * again".  Every quote in README.md and docs/ is a string session.c
 * prints. */
Test(cli, regression_197_the_docs_quote_the_busy_machine_note_as_printed)
{
    char *src = rbt_slurp(RB_SOURCE_DIR, "bench/cli/session.c", NULL);
    cr_assert_not_null(src);
    cr_assert(strstr(src, "\" (a busy machine: trials may run short and be measured again)\"") !=
                  NULL,
              "session.c's note is not the one this test knows");
    static const char *const docs[] = {"README.md",           "docs/choosing.md", "docs/cli.md",
                                       "docs/measurement.md", "docs/results.md",  "docs/peers.md"};
    size_t quotes = 0;
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        char *doc = rbt_slurp(RB_SOURCE_DIR, docs[i], NULL);
        cr_assert_not_null(doc, "%s", docs[i]);
        for (const char *q = strstr(doc, "(a busy machine:"); q;
             q = strstr(q + 1, "(a busy machine:")) {
            size_t n = strcspn(q, ")\n");
            char quote[256];
            snprintf(quote, sizeof quote, "%.*s)", (int)n, q);
            cr_expect(strstr(src, quote) != NULL, "%s quotes a note the program does not print: %s",
                      docs[i], quote);
            quotes++;
        }
        free(doc);
    }
    cr_expect_gt(quotes, 0u, "no doc quotes the note (measurement.md does)");
    free(src);
}

Test(cli, import_and_requests_agree_on_out)
{
    char args[1024];
    snprintf(args, sizeof args,
             "corpus import --openapi '%s/tests/fuzz/corpus/fuzz_openapi/pets.yaml'",
             RB_SOURCE_DIR);
    result r = rb(args);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strncmp(r.out, "GET /pets\n", 10) == 0, "routes on stdout: %s", r.out);
    cr_expect(strstr(r.err, "routes from") != NULL, "the summary on stderr: %s", r.err);
    write_file("p.routes", r.out);
    done(&r);
    r = rb("corpus requests p.routes --count 20");
    cr_expect_eq(r.status, 0, "%s", r.err);
    size_t lines = 0;
    for (const char *p = r.out; *p; p++) lines += *p == '\n';
    cr_expect_eq(lines, 21, "the routes fingerprint line and 20 requests on stdout: %s", r.out);
    cr_expect(strncmp(r.out, "# routes xxh3:", 14) == 0, "%s", r.out);
    cr_expect(strstr(r.err, "20 requests") != NULL, "%s", r.err);
    done(&r);
    r = rb("corpus requests p.routes --count 20 --out p.requests");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "-> p.requests") != NULL, "%s", r.out);
    done(&r);
    r = rb("verify --router glob --routes p.routes --requests p.requests");
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    done(&r);
}

/* --paths: the requests of one table, EXPECTED recomputed for its twin
 * (templates written as params): the same paths, other answers. */
Test(cli, requests_paths_recompute_expected_for_another_table)
{
    write_file("t.routes", "GET /a/{sid}.json\nGET /a/:id/x\nPOST /b\n");
    write_file("twin.routes", "GET /a/{sid}\nGET /a/:id/x\nPOST /b\n");
    write_file("t.requests", "GET /a/7.json 0\nGET /a/7 -1\nGET /a/7/x 1\nGET /b -2\n");
    result r = rb("corpus requests twin.routes --paths t.requests");
    cr_expect_eq(r.status, 0, "%s", r.err);
    const char *body = strchr(r.out, '\n');
    cr_expect(strncmp(r.out, "# routes xxh3:", 14) == 0, "the twin's fingerprint line: %s", r.out);
    cr_expect_str_eq(body ? body + 1 : r.out,
                     "GET /a/7.json 0\nGET /a/7 0\nGET /a/7/x 1\nGET /b -2\n");
    write_file("twin.requests", r.out);
    cr_expect(strstr(r.err, "3 found, 0 not found (-1), 1 method not allowed") != NULL, "%s",
              r.err);
    done(&r);
    r = rb("verify --router radix --routes twin.routes --requests twin.requests");
    cr_expect_eq(r.status, 0, "the fingerprint line names the twin: %s%s", r.out, r.err);
    done(&r);
    r = rb("verify --router radix --routes t.routes --requests twin.requests");
    cr_expect_eq(r.status, 2, "not the table it was made for: %s%s", r.out, r.err);
    done(&r);
    r = rb("corpus requests twin.routes --paths t.requests --count 3");
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "--paths and --count cannot be used together") != NULL, "%s", r.err);
    done(&r);
    r = rb("corpus requests twin.routes --paths nosuch.requests");
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "nosuch.requests") != NULL, "%s", r.err);
    done(&r);
}

Test(cli, gbench_help_shows_its_own_options_first)
{
    char exe[512], cmd[1200], path[256];
    snprintf(exe, sizeof exe, "%s/routebench-gbench", RB_BINARY_DIR);
    if (access(exe, X_OK) != 0) cr_skip_test("routebench-gbench is not built (libbenchmark-dev)");
    snprintf(path, sizeof path, "%s/gbench.txt", tmpdir);
    snprintf(cmd, sizeof cmd, "'%s' --help >'%s' 2>&1", exe, path);
    int st = system(cmd);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    char *h = slurp_path(path);
    const char *ours = strstr(h, "routebench-gbench options:");
    const char *theirs = strstr(h, "--benchmark_filter");
    cr_expect(ours && theirs && ours < theirs, "%s", h);
    cr_expect(strstr(h, "--scenarios") && strstr(h, "--routers") && strstr(h, "--router-lib"), "%s",
              h);
    cr_expect(strstr(h, "Library was built as DEBUG") != NULL, "the Debian note: %s", h);
    free(h);
}

/* Run `ROUTEBENCH_DATA=DATA routebench verify --all` in tmpdir; stdout and
 * stderr together. */
static result verify_all_in(const char *data)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && ROUTEBENCH_DATA='%s' '%s/routebench' verify --all >out.txt 2>&1 "
             "</dev/null",
             tmpdir, data, RB_BINARY_DIR);
    int st = system(cmd);
    cr_assert(st != -1 && WIFEXITED(st), "%s did not exit", cmd);
    char path[256];
    snprintf(path, sizeof path, "%s/out.txt", tmpdir);
    return (result){WEXITSTATUS(st), slurp_path(path), NULL};
}

/* Rule: with ROUTEBENCH_DATA naming a directory of other tables (an older
 * set), verify --all skips each shipped corpus that is not there, saying
 * so, and verifies the others; a directory with none of them is an error. */
Test(cli, verify_all_skips_corpora_absent_from_routebench_data)
{
    write_file("gplus.routes", "GET /people/:userId\nGET /people\n");
    write_file("gplus.requests", "GET /people/7 0\nGET /people 1\nGET /x -1\n");
    result r = verify_all_in(".");
    cr_expect_eq(r.status, 0, "%s", r.out);
    cr_expect(strstr(r.out, "./gplus.requests: 3/3 agree with EXPECTED") != NULL,
              "gplus is verified from the directory: %s", r.out);
    cr_expect(strstr(r.out, "twilio     skipped: not in $ROUTEBENCH_DATA") != NULL, "%s", r.out);
    done(&r);
    char dir[128];
    snprintf(dir, sizeof dir, "%s/empty", tmpdir);
    cr_assert_eq(mkdir(dir, 0700), 0);
    r = verify_all_in("empty");
    cr_expect_eq(r.status, 2, "%s", r.out);
    cr_expect(strstr(r.out, "holds none of the shipped corpora") != NULL, "%s", r.out);
    done(&r);
}

/* Rule: one table of exit statuses (bench/cli/cli.h, docs/measurement.md):
 * 0 done, 1 a check failed, 2 usage or input, 3 the gate inconclusive (its
 * outcome -> status mapping is test_gate's), 4 out of memory or an output
 * that cannot be written -- which used to exit 2, as if the user erred. */
Test(cli, each_exit_status_means_one_thing)
{
    result r = rb("list");
    cr_expect_eq(r.status, 0, "list: exit %d: %s", r.status, r.err);
    done(&r);

    write_file("t.routes", "GET /a\nGET /b\n");
    write_file("wrong.requests", "GET /a 1\n"); /* /a is route 0 */
    r = rb("verify --router radix --routes t.routes --requests wrong.requests");
    cr_expect_eq(r.status, 1, "a wrong answer: exit %d: %s", r.status, r.err);
    done(&r);

    r = rb("run --no-such-flag");
    cr_expect_eq(r.status, 2, "an unknown flag: exit %d: %s", r.status, r.err);
    done(&r);
    r = rb("verify --router radix --routes missing.routes --requests wrong.requests");
    cr_expect_eq(r.status, 2, "a missing input file: exit %d: %s", r.status, r.err);
    done(&r);

    /* stdout on a full device: the output cannot be written */
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && '%s/routebench' corpus compare t.routes t.routes >/dev/full 2>err.txt",
             tmpdir, RB_BINARY_DIR);
    int st = system(cmd);
    cr_assert(st != -1 && WIFEXITED(st), "%s did not exit", cmd);
    cr_expect_eq(WEXITSTATUS(st), 4, "stdout on /dev/full: exit %d", WEXITSTATUS(st));
}

/* A requested path that reads as a pattern cannot be put in the limit's
 * exact-match table: the limit refuses that scenario, the run goes on. */
Test(cli, regression_180_a_requested_path_read_as_a_pattern_leaves_out_only_the_limit)
{
    write_file("t.routes", "GET /a/:id\nGET /b\n");
    write_file("t.requests", "GET /a/:id 0\nGET /a/7 0\nGET /b 1\n");
    result r = rb("run --routes t.routes --requests t.requests --routers linear,limit " RUN_FAST
                  " --out o");
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "limit refused it") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "GET /a/:id") != NULL, "the refusal names the request: %s", r.out);
    done(&r);
}

/* A table over the most routes `compiled` compiles is refused by it alone,
 * before anything is compiled; the run goes on (it stopped the run). */
Test(cli, regression_183_compiled_refuses_a_large_table_and_the_run_goes_on)
{
    result r = rb("run --routers radix,compiled --scenarios static-20001 " RUN_FAST " --out o");
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "compiled refused it: 20001 routes, over the 20000 it compiles") !=
                  NULL,
              "%s", r.out);
    done(&r);
}

/* Regression: a counted run's notes were printed twice, once by the
 * command checking its options and once by the same command under
 * Callgrind ("note: no built-in peer runner is in --lang cobol" twice).
 * Needs valgrind, which cannot run a sanitized build. */
Test(cli, regression_198_a_counted_runs_notes_are_said_once)
{
    if (RB_TEST_SANITIZED) cr_skip_test("sanitized build: Valgrind cannot run it");
    if (system("valgrind --version >/dev/null 2>&1") != 0)
        cr_skip_test("valgrind is not installed (scripts/setup.sh installs it): skipped");
    result r = rb("run --scenarios github --routers hashseg --lang cobol --metric instructions");
    cr_expect_eq(r.status, 0, "exit %d\n%s", r.status, r.err);
    size_t notes = 0;
    for (const char *p = r.err; (p = strstr(p, "no built-in peer runner is in --lang cobol")); p++)
        notes++;
    cr_expect_eq(notes, 1u, "the note %zu times:\n%s", notes, r.err);
    done(&r);
}
