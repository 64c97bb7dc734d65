/*
 * test_cli_hints.c — every command accepts the advice it prints.
 *
 * The flags named in the string literals of bench/ (warnings, hints,
 * errors: "a quieter machine, --cpu N or --clock cpu help") are collected
 * from the sources, and each must be an option of every command that can
 * print that string, by its --help.  Which commands print a file's strings:
 * cli/cmd_X.c is command X (cmd_corpus.c and the corpus library's files
 * that write its outputs: any corpus subcommand); the library files that
 * render a command's output are that command; the session, the measuring
 * code and the bundle are run, pair and choose; the gate's files and the
 * self-test's are pair; http/ is http.  Help texts of options (.help =, or
 * a row written by a row constructor, CLI_OPT_FLAG(...)) describe the
 * command they belong to and are left out, and a literal that
 * names "routebench CMD" is advice for CMD.  The few literals that name a
 * flag of something else are listed below with the reason.
 */
#include "rb_test.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct exemption {
    const char *file, *flag, *why;
} exemption;

static const exemption exempt[] = {
    {"bundle/bundle.c", "--no-conflicts", "a part of the `routebench corpus gen` line it writes"},
    {"measure/scenario.c", "--no-conflicts",
     "a part of the `routebench corpus gen` line it writes"},
    {"bundle/bundle_csv.c", "--metric", "names the metric a bundle was measured in, not advice"},
    {"http/http.c", "--timeout", "an option of the HTTP server process it starts"},
    {"measure/peer.c", "--flag", "an example of a peer runner's own option"},
    {"http/http.c", "--router", "an option of the HTTP server process it starts"},
    {"cli/session.c", "--metric", "said only once --metric was given, which run and pair take"},
    {"suite/suite_estimate.c", "--metric",
     "said only once --metric was given, which run and pair take"},
    {"report/console_session.c", "--metric",
     "said only once --metric was given, which run and pair take"},
    {"cli/session.c", "--routers", "said by session_add_routers, which run and choose call for it"},
    {"suite/catalog.c", "--peers", "an option of scripts/setup.sh, which builds the peers"},
    {"cli/cmd_compare.c", "--metric", "names what run and pair take to gate on an exact count"},
    {"report/report_compare.c", "--metric",
     "names the metric the two results were recorded with (run and pair take it)"},
};

static bool exempted(const char *file, const char *flag)
{
    for (size_t i = 0; i < sizeof exempt / sizeof exempt[0]; i++)
        if (strcmp(exempt[i].file, file) == 0 && strcmp(exempt[i].flag, flag) == 0) return true;
    return false;
}

static const char *const corpus_commands[] = {"corpus gen",    "corpus requests", "corpus check",
                                              "corpus import", "corpus profile",  "corpus compare"};
static const char *const session_commands[] = {"run", "pair", "choose"};

/* The --help text of a command ("pair", "corpus gen"), cached. */
static const char *help_of(const char *cmd)
{
    static struct {
        char cmd[32];
        char *text;
    } cache[32];
    static size_t n;
    for (size_t i = 0; i < n; i++)
        if (strcmp(cache[i].cmd, cmd) == 0) return cache[i].text;
    cr_assert_lt(n, 32u);
    char *tmp = rbt_tmpdir(), line[128];
    snprintf(line, sizeof line, "\"$RB\" %s --help", cmd);
    rbt_shell r = rbt_shell_run(tmp, line);
    rbt_remove_tree(tmp);
    free(tmp);
    cr_assert_eq(r.status, 0, "%s --help: %s", cmd, r.err);
    snprintf(cache[n].cmd, sizeof cache[n].cmd, "%s", cmd);
    cache[n].text = r.out;
    free(r.err);
    return cache[n++].text;
}

/* Does cmd's help list flag as an option (a word of its own)? */
static bool accepts(const char *cmd, const char *flag)
{
    const char *h = help_of(cmd);
    size_t n = strlen(flag);
    for (const char *p = strstr(h, flag); p; p = strstr(p + 1, flag)) {
        char before = p == h ? ' ' : p[-1], after = p[n];
        if ((before == ' ' || before == ',' || before == '[' || before == '\n') &&
            (after == ' ' || after == ',' || after == '\n' || after == '=' || after == ']'))
            return true;
    }
    return false;
}

/* The commands that print the strings of file (relative to bench/). */
static size_t printers(const char *file, const char **out)
{
    const char *slash = strchr(file, '/');
    const char *base = slash ? slash + 1 : file;
    static char cmd[32];
    if (strncmp(file, "cli/cmd_", 8) == 0) {
        if (strcmp(file, "cli/cmd_corpus.c") == 0) return 0; /* checked apart: any subcommand */
        snprintf(cmd, sizeof cmd, "%.*s", (int)(strlen(base) - 6), base + 4);
        out[0] = cmd;
        return 1;
    }
    /* what a command's library side says for it */
    static const char *const said_for[][2] = {
        {"suite/catalog.c", "list"},
        {"report/report_verify.c", "verify"},
        {"report/report_compare.c", "compare"},
        {"suite/rerender.c", "report"},
    };
    for (size_t i = 0; i < sizeof said_for / sizeof *said_for; i++)
        if (strcmp(file, said_for[i][0]) == 0) {
            out[0] = said_for[i][1];
            return 1;
        }
    if (strcmp(file, "cli/pair_selftest.c") == 0 || strcmp(file, "suite/selftest_text.c") == 0 ||
        strcmp(base, "gate.c") == 0 || strcmp(base, "bundle_gate.c") == 0 ||
        strcmp(base, "report_gate.c") == 0 ||
        strcmp(base, "headline.c") == 0) { /* headline.c: its gate line */
        out[0] = "pair";
        return 1;
    }
    if (strncmp(file, "http/", 5) == 0) {
        out[0] = "http";
        return 1;
    }
    if (strcmp(file, "cli/session.c") == 0 || strcmp(file, "cli/progress.c") == 0 ||
        strcmp(file, "report/report_console.c") == 0 ||
        strcmp(file, "report/console_session.c") == 0 ||
        strcmp(file, "suite/suite_estimate.c") == 0 || strcmp(file, "suite/suite_routers.c") == 0 ||
        ((strncmp(file, "measure/", 8) == 0 || strncmp(file, "bundle/", 7) == 0) &&
         strcmp(base, "callgrind.c") != 0 &&
         strcmp(base, "peer_count.c") != 0)) { /* these two: Valgrind's own options */
        for (size_t i = 0; i < 3; i++) out[i] = session_commands[i];
        return 3;
    }
    return 0;
}

/* The text of the literal run starting at *p ("a" "b" -> ab), advancing *p. */
static size_t literal(const char **p, char *buf, size_t cap)
{
    size_t n = 0;
    const char *s = *p;
    while (*s == '"') {
        for (s++; *s && *s != '"'; s++) {
            if (*s == '\\' && s[1]) s++;
            if (n + 1 < cap) buf[n++] = *s;
        }
        if (*s == '"') s++;
        const char *t = s;
        while (*t == ' ' || *t == '\n' || *t == '\t') t++;
        if (*t != '"') break;
        s = t;
    }
    buf[n] = '\0';
    *p = s;
    return n;
}

/* Is the literal at p the value of an option table's documentation field? */
static bool documents_an_option(const char *text, const char *p)
{
    static const char *const fields[] = {".help",  ".about",    ".epilog",   ".synopsis", ".name",
                                         ".alias", ".requires", ".excludes", ".metavar"};
    const char *q = p;
    while (q > text && (q[-1] == ' ' || q[-1] == '\n' || q[-1] == '=')) q--;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        size_t n = strlen(fields[i]);
        if ((size_t)(q - text) >= n && strncmp(q - n, fields[i], n) == 0) return true;
    }
    return false;
}

typedef struct tally {
    size_t flags, checked;
    char failures[8192];
    size_t len;
} tally;

static void check_flag(tally *t, const char *file, const char *flag, const char *const *cmds,
                       size_t ncmds, const char *said)
{
    t->flags++;
    if (exempted(file, flag)) return;
    for (size_t c = 0; c < ncmds; c++) {
        t->checked++;
        if (accepts(cmds[c], flag)) continue;
        int w = snprintf(t->failures + t->len, sizeof t->failures - t->len,
                         "  %s: `routebench %s` prints \"%.70s\" but takes no %s\n", file, cmds[c],
                         said, flag);
        if (w > 0 && (size_t)w < sizeof t->failures - t->len) t->len += (size_t)w;
    }
}

/* Blank the option rows written by a row constructor (options.h:
 * CLI_OPT_STRING("--out", "DIR", offset, "write the bundle ..."), and the
 * row macros built on them, CLI_SEED(...)): their names and help texts
 * document the command's own options, as .name = and .help = do. */
static void blank_rows(char *text)
{
    static const char *const makers[] = {"CLI_OPT_", "CLI_SEED", "CLI_ROUTER_LIB", "CLI_FAIL_BELOW",
                                         "SESSION_OPT_"};
    for (size_t i = 0; i < sizeof makers / sizeof makers[0]; i++)
        for (char *c = strstr(text, makers[i]); c; c = strstr(c + 1, makers[i])) {
            char *e = c + strspn(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_");
            if (*e != '(') continue; /* not a call: CLI_SEED_MAX */
            for (int depth = 0; *e; e++) {
                if (*e == '"') { /* a literal's parentheses do not count */
                    for (e++; *e && *e != '"'; e++)
                        if (*e == '\\' && e[1]) e++;
                    if (!*e) break;
                } else if (*e == '(') {
                    depth++;
                } else if (*e == ')' && --depth == 0) {
                    break;
                }
            }
            memset(c, ' ', (size_t)(e - c) + (*e != '\0'));
        }
}

/* Every flag of every literal of file (source text, comments and option
 * rows blanked). */
static void scan(tally *t, const char *file, char *text)
{
    for (char *c = strstr(text, "/*"); c; c = strstr(c, "/*")) {
        char *e = strstr(c + 2, "*/");
        if (!e) break;
        memset(c, ' ', (size_t)(e + 2 - c));
    }
    blank_rows(text);
    const char *cmds[8];
    size_t ncmds = printers(file, cmds);
    bool corpus = strcmp(file, "cli/cmd_corpus.c") == 0 || strncmp(file, "corpus/", 7) == 0;
    regex_t flag_re, cmd_re;
    cr_assert_eq(regcomp(&flag_re, "(^|[^-a-z0-9])(--[a-z][-a-z]*[a-z])", REG_EXTENDED), 0);
    cr_assert_eq(regcomp(&cmd_re,
                         "routebench (run|pair|choose|report|http|verify|list|corpus "
                         "(gen|requests|check|import|profile|compare))( |$)",
                         REG_EXTENDED),
                 0);
    for (const char *p = strchr(text, '"'); p; p = strchr(p, '"')) {
        if (p > text && p[-1] == '\'') { /* the character '"' */
            p++;
            continue;
        }
        bool doc = documents_an_option(text, p);
        char lit[4096];
        literal(&p, lit, sizeof lit);
        if (doc) continue;
        regmatch_t m[4];
        const char *named[1];
        const char *const *who = cmds;
        size_t nwho = ncmds;
        if (regexec(&cmd_re, lit, 2, m, 0) == 0) { /* advice for that command */
            static char name[32];
            snprintf(name, sizeof name, "%.*s", (int)(m[1].rm_eo - m[1].rm_so), lit + m[1].rm_so);
            named[0] = name;
            who = named;
            nwho = 1;
        }
        for (const char *s = lit; regexec(&flag_re, s, 3, m, 0) == 0; s += m[2].rm_eo) {
            char flag[64];
            snprintf(flag, sizeof flag, "%.*s", (int)(m[2].rm_eo - m[2].rm_so), s + m[2].rm_so);
            if (corpus) { /* any corpus subcommand */
                bool any = exempted(file, flag);
                for (size_t i = 0; i < 6 && !any; i++) any = accepts(corpus_commands[i], flag);
                t->flags++;
                if (!any)
                    t->len += (size_t)snprintf(t->failures + t->len, sizeof t->failures - t->len,
                                               "  %s: no corpus command takes %s\n", file, flag);
                continue;
            }
            check_flag(t, file, flag, who, nwho, lit);
        }
    }
    regfree(&flag_re);
    regfree(&cmd_re);
}

static void walk(tally *t, const char *root, const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    DIR *d = opendir(path);
    cr_assert_not_null(d, "cannot read %s", path);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        char sub[1024];
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        snprintf(path, sizeof path, "%s/%s", root, sub);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            walk(t, root, sub);
            continue;
        }
        size_t n = strlen(e->d_name);
        if (n < 3 || strcmp(e->d_name + n - 2, ".c") != 0) continue;
        char *text = rbt_slurp(root, sub, NULL);
        scan(t, sub, text);
        free(text);
    }
    closedir(d);
}

Test(cli_hints, every_command_accepts_every_flag_its_messages_name, .timeout = 120)
{
    tally t = {0};
    walk(&t, RB_SOURCE_DIR "/bench", "");
    /* the corpus library's files that write what `routebench corpus` says */
    const char *corpus_files[] = {"gen_pair.c", "check_text.c", "import_file.c", "profile_file.c"};
    for (size_t i = 0; i < sizeof corpus_files / sizeof *corpus_files; i++) {
        char name[64];
        snprintf(name, sizeof name, "corpus/%s", corpus_files[i]);
        char *text = rbt_slurp(RB_SOURCE_DIR, name, NULL);
        scan(&t, name, text);
        free(text);
    }
    cr_expect_gt(t.flags, 50u, "the scan found flags in the sources");
    cr_expect_gt(t.checked, 50u);
    cr_expect_eq(t.len, 0u, "advice a command cannot follow:\n%s", t.failures);
}

/* The case that started it: the busy-machine warning names --cpu and
 * --clock, and choose prints it too. */
Test(cli_hints, choose_takes_the_options_its_warnings_name)
{
    static const char *const flags[] = {"--clock",  "--cpu",          "--warmup",
                                        "--trials", "--export-json",  "--export-csv",
                                        "--seed",   "--min-trial-ms", "--verbose"};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        cr_expect(accepts("choose", flags[i]), "choose takes no %s", flags[i]);
}
