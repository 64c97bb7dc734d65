/*
 * test_special_files.c — the one rule for special files (base/file.h),
 * bounded readers, the values a saved result may hold, lost output, and
 * file names in the Markdown reports, each checked from the command line.
 *
 * Every command runs under `timeout`, so a reader that would block on a
 * FIFO fails its test instead of hanging the suite.
 */
#include "format.h"
#include "rb_test.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *tmp;

static void setup(void)
{
    tmp = rbt_tmpdir();
}

static void teardown(void)
{
    rbt_remove_tree(tmp);
    free(tmp);
}

TestSuite(special_files, .init = setup, .fini = teardown, .timeout = 240);

static rbt_shell sh(const char *cmd)
{
    return rbt_shell_run(tmp, cmd);
}

static void expect_status(const char *cmd, int status, const char *says)
{
    rbt_shell r = sh(cmd);
    cr_expect_eq(r.status, status, "%s: exit %d, expected %d: %s", cmd, r.status, status, r.err);
    if (says) cr_expect(strstr(r.err, says), "%s: no '%s' in: %s", cmd, says, r.err);
    rbt_shell_free(&r);
}

static bool is_fifo(const char *name)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    return lstat(path, &st) == 0 && S_ISFIFO(st.st_mode);
}

/* a small saved result (time: no Valgrind needed) as s.json, bundle b/ */
static void saved_result(void)
{
    rbt_shell r = sh("\"$RB\" run --routers hashseg --scenarios params-100 --trials 3 "
                     "--min-trial-ms 1 --export-json s.json --out b >/dev/null");
    cr_assert_eq(r.status, 0, "run: exit %d: %s", r.status, r.err);
    rbt_shell_free(&r);
}

/* Writers renamed a temporary file over whatever was at the path: a FIFO
 * became a regular file (and -o /dev/null, run as root, replaced the
 * device node).  Each writer now writes into a FIFO in place. */
Test(special_files, regression_230_every_writer_writes_into_a_fifo_in_place)
{
    saved_result();
    char cmd[8192];
    const char *writers[] = {
        "\"$RB\" compile --routes \"$D\".routes -o f",
        "\"$RB\" corpus requests \"$D\".routes --count 10 --out f",
        "\"$RB\" corpus profile \"$D\".routes --out f",
        "\"$RB\" run --routers hashseg --scenarios params-100 --trials 3 --min-trial-ms 1 "
        "--export-json f >/dev/null",
        "mkdir -p h && cp s.json h/001-a.json && \"$RB\" history h --svg f >/dev/null",
    };
    for (size_t i = 0; i < sizeof writers / sizeof *writers; i++) {
        const char *w = writers[i];
        snprintf(
            cmd, sizeof cmd,
            "D='%s/corpus/data/github'; rm -f f got && mkfifo f && { timeout 20 cat f >got & } && "
            "timeout 60 %s; st=$?; wait; exit $st",
            RB_SOURCE_DIR, w);
        rbt_shell r = sh(cmd);
        cr_expect_eq(r.status, 0, "%s: exit %d: %s", w, r.status, r.err);
        cr_expect(is_fifo("f"), "%s: the FIFO was replaced", w);
        size_t len = 0;
        free(rbt_slurp(tmp, "got", &len));
        cr_expect_gt(len, 0, "%s: nothing came through the FIFO", w);
        rbt_shell_free(&r);
    }
}

/* A character device (made here, never /dev/null itself) stays one. */
Test(special_files, regression_231_a_character_device_output_is_written_not_replaced)
{
    if (geteuid() != 0) cr_skip_test("mknod needs root");
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "mknod null c 1 3 && \"$RB\" compile --routes %s/corpus/data/github.routes -o null "
             "&& test -c null",
             RB_SOURCE_DIR);
    expect_status(cmd, 0, NULL);
}

/* Readers took any file whole: /dev/zero grew them to gigabytes, a FIFO
 * blocked them for ever.  Now: exit 2 naming what the file is. */
Test(special_files, regression_232_readers_refuse_devices_and_named_fifos)
{
    saved_result();
    char cmd[4096];
    expect_status("timeout 20 \"$RB\" compare s.json /dev/zero", 2, "a character device");
    snprintf(cmd, sizeof cmd, "timeout 20 \"$RB\" compile --routes /dev/zero -o c.c");
    expect_status(cmd, 2, "a character device");
    expect_status("timeout 20 \"$RB\" corpus import --openapi /dev/zero --out i.routes", 2,
                  "a character device");
    expect_status("mkdir z && cp b/summary.json z/ && ln -s /dev/zero z/trials.csv && "
                  "timeout 20 \"$RB\" report z",
                  2, "a character device");
    expect_status("mkdir h && cp s.json h/001-a.json && mkfifo h/002-x.json && "
                  "timeout 20 \"$RB\" history h",
                  2, "002-x.json: it is a FIFO");
    expect_status("mkdir f && cp b/trials.csv f/ && mkfifo f/summary.json && "
                  "timeout 20 \"$RB\" compare s.json f/summary.json",
                  2, "a FIFO");
    expect_status("timeout 20 \"$RB\" report f", 2, "a FIFO");
    expect_status("timeout 20 \"$RB\" compare s.json .", 2, NULL);
    /* run counted the lines of /dev/zero for its estimate, for ever */
    expect_status("timeout 20 \"$RB\" run --routers hashseg --routes /dev/zero --requests "
                  "/dev/zero",
                  2, "a character device");
}

/* A pipe handed over on purpose, <(...), is read; over the cap it is
 * refused naming the cap, and so is a regular file. */
Test(special_files, regression_233_a_pipe_given_on_purpose_is_read_up_to_the_cap)
{
    saved_result();
    expect_status(
        "export RB; timeout 20 bash -c '\"$RB\" compare <(cat s.json) <(cat s.json) >/dev/null'", 0,
        NULL);
    expect_status(
        "export RB; timeout 20 bash -c '\"$RB\" compare s.json <(head -c 70000000 /dev/zero)'", 2,
        "64 MiB");
    /* run's estimate read the pipes first and left the tables empty */
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "export RB D='%s/corpus/data/github'; timeout 60 bash -c '\"$RB\" run --routers "
             "hashseg --routes <(cat \"$D\".routes) --requests <(cat \"$D\".requests) --trials 3 "
             "--min-trial-ms 1 >/dev/null'",
             RB_SOURCE_DIR);
    expect_status(cmd, 0, NULL);
    expect_status("truncate -s 300M big.routes && timeout 20 \"$RB\" compile --routes big.routes "
                  "-o c.c",
                  2, "256 MiB");
}

/* compare took any number: -5 or 1e400 printed nan and passed, 1e-300
 * passed the gate with a 300-digit ratio.  Now exit 2 naming the field. */
Test(special_files, regression_234_compare_and_report_check_what_a_value_means)
{
    saved_result();
    const char *values[] = {"-5", "0", "1e400", "1e-300"};
    char cmd[4096];
    for (size_t i = 0; i < 4; i++) {
        snprintf(cmd, sizeof cmd,
                 "sed 's/\"median_ns\":[^,]*,/\"median_ns\": %s,/' s.json >m.json && "
                 "\"$RB\" compare s.json m.json",
                 values[i]);
        expect_status(cmd, 2, "\"median_ns\"");
        snprintf(cmd, sizeof cmd,
                 "sed 's/\"median_ns\":[^,]*,/\"median_ns\": %s,/' s.json >m.json && "
                 "\"$RB\" compare --fail-below 0.97 --unpaired-gate s.json m.json",
                 values[i]);
        expect_status(cmd, 2, "\"median_ns\"");
    }
    const char *fields[] = {"duration_s", "loadavg_start"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(cmd, sizeof cmd,
                 "rm -rf d && mkdir d && cp b/trials.csv d/ && "
                 "sed 's/\"%s\":[^,]*,/\"%s\": 1e400,/' b/summary.json >d/summary.json && "
                 "\"$RB\" report d",
                 fields[i], fields[i]);
        char says[64];
        snprintf(says, sizeof says, "\"%s\"", fields[i]);
        expect_status(cmd, 2, says);
    }
    expect_status("sed 's/\"loadavg_end\":[^,]*,/\"loadavg_end\": -3,/' s.json >m.json && "
                  "\"$RB\" compare s.json m.json",
                  2, "\"loadavg_end\"");
}

/* compare and history exited 0 with stdout at /dev/full.  Every command
 * that prints on stdout now exits 4 when that output is lost. */
Test(special_files, regression_235_lost_output_exits_4_in_every_command)
{
    saved_result();
    const char *cmds[] = {
        "\"$RB\" --help",
        "\"$RB\" --version",
        "\"$RB\" help run",
        "\"$RB\" list",
        "\"$RB\" verify --router radix --routes \"$D\".routes --requests \"$D\".requests",
        "\"$RB\" run --routers hashseg --scenarios params-100 --trials 3 --min-trial-ms 1",
        "\"$RB\" pair --baseline hashseg --candidate radix --scenarios params-100 --trials 3 "
        "--min-trial-ms 1",
        "\"$RB\" choose --routes \"$D\".routes --requests \"$D\".requests --trials 3",
        "\"$RB\" compare s.json s.json",
        "mkdir -p h && cp s.json h/001-a.json && \"$RB\" history h",
        "\"$RB\" compile --routes \"$D\".routes -o -",
        "\"$RB\" corpus requests \"$D\".routes --count 10",
        "\"$RB\" corpus check \"$D\".routes",
        "\"$RB\" corpus profile \"$D\".routes",
        "\"$RB\" corpus compare \"$D\".routes \"$D\".routes",
        "\"$RB\" report b",
    };
    char cmd[8192];
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        const char *c = cmds[i];
        snprintf(cmd, sizeof cmd, "D='%s/corpus/data/github'; timeout 120 %s >/dev/full",
                 RB_SOURCE_DIR, c);
        rbt_shell r = sh(cmd);
        cr_expect_eq(r.status, 4, "%s: exit %d, expected 4: %s", c, r.status, r.err);
        rbt_shell_free(&r);
    }
}

static void expect_md(const char *in, const char *want)
{
    rb_buf b = {0};
    rb_format_md(&b, in, strlen(in));
    cr_assert(!b.failed);
    cr_expect_str_eq(b.data ? b.data : "", want, "rb_format_md(%s)", in);
    rb_buf_free(&b);
}

/* report.md and http.md carried file names as raw inline HTML: a routes
 * file named r<img src=x onerror=...>.routes put an <img> tag in every
 * Markdown viewer.  A '<' outside a code span is written "\\<". */
Test(special_files, regression_238_a_file_name_cannot_open_html_in_report_md)
{
    expect_md("### r<img src=x>\n", "### r\\<img src=x>\n");
    expect_md("From `r<img>.routes`.", "From `r<img>.routes`.");
    expect_md("``a`<b>``, `x` <c", "``a`<b>``, `x` \\<c");
    expect_md("a ` b <c", "a ` b \\<c");     /* a lone backtick opens nothing */
    expect_md("`a\n<b>` c", "`a\n\\<b>` c"); /* a span ends with its line here */
    expect_md("> quote, x >= 1", "> quote, x >= 1");
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "D='%s/corpus/data/github'; n='r<img src=x onerror=alert(1)>'; "
             "cp \"$D\".routes \"$n.routes\" && cp \"$D\".requests \"$n.requests\" && "
             "\"$RB\" run --routers hashseg --routes \"$n.routes\" --requests \"$n.requests\" "
             "--trials 3 --min-trial-ms 1 --out b >/dev/null && "
             "sed 's/`[^`]*`//g' b/report.md | grep -c '[^\\\\]<img'",
             RB_SOURCE_DIR);
    rbt_shell r = sh(cmd);
    cr_expect_str_eq(r.out, "0\n", "raw <img> outside code spans in report.md: %s %s", r.out,
                     r.err);
    rbt_shell_free(&r);
}
