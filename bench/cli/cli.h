/*
 * cli.h — the command layer of the `routebench` executable: one
 * function per subcommand (cmd_*.c), each described by an option table
 * (options.h), and the helpers they share for messages and plugins.
 * Commands return the process exit status: 0 success, 1 a check failed
 * (disagreement, regression, duplicates), 2 usage or input error.  Every
 * message a command prints on stderr starts "routebench CMD: ".
 */
#ifndef RB_CLI_H
#define RB_CLI_H

#include "options.h"
#include "plugins.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The exit status of every command, one table (docs/cli.md, "Exit
 * status"; tests/test_cli.c checks each from the command line):
 *   CLI_OK            0  done
 *   CLI_FAILED        1  a check failed: the pair gate, wrong answers, a
 *                        bundle whose summary.json disagrees with trials.csv
 *   CLI_USAGE         2  usage or input error (a flag, a file, a table)
 *   CLI_INCONCLUSIVE  3  pair --fail-below: the gate could not decide
 *   CLI_SYSTEM        4  out of memory, or an output could not be written */
enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2, CLI_INCONCLUSIVE = 3, CLI_SYSTEM = 4 };

/* cli_args: the command goes on. */
#define CLI_CONTINUE (-1)

/* Parse argv with c into dest (which holds the defaults).  Returns
 * CLI_CONTINUE when the command should go on; otherwise the exit status,
 * after printing the help (CLI_OK) or the error (CLI_USAGE). */
int cli_args(const cli_command *c, void *dest, int argc, char **argv);

/* Print "routebench CMD: MESSAGE" on stderr; returns CLI_USAGE. */
int cli_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* CLI_CALL destination handlers shared by commands: --router-lib LIB loads
 * a plugin library into the rb_plugins field. */
int cli_take_router_lib(void *plugins, const char *path, rb_error *err);
/* --fail-below R: a ratio from 0.5 to 1 (0.97) or a slowdown in percent
 * (3% means 0.97), into a double; a value out of range is refused with
 * what it probably meant (97: 0.97 or 3%). */
int cli_take_fail_below(void *field, const char *value, rb_error *err);

/* The rows of options that mean the same in every command that takes them,
 * with one loader or parser: each command gives the field's offset in its
 * own options struct and its own help text (as CLI_SEED does for --seed).
 * --router-lib LIB (repeatable) loads into an rb_plugins field; --fail-below
 * R reads the gate's threshold into a double. */
#define CLI_ROUTER_LIB(field_offset, text)                                                         \
    CLI_OPT_CALL("--router-lib", "LIB", field_offset, cli_take_router_lib, (text),                 \
                 .flags = CLI_REPEAT)
#define CLI_FAIL_BELOW(field_offset, text)                                                         \
    CLI_OPT_CALL("--fail-below", "R", field_offset, cli_take_fail_below, (text))

/* Resolve a router spec (NAME, `limit`, `compiled` or NAME@LIB:
 * rb_suite_resolve, bench/suite/suite_routers.h); NULL (message on stderr
 * naming cmd) when there is no such router. */
const rb_router_ops *cli_router(rb_plugins *p, const char *cmd, const char *spec);

/* Print err's message as cli_system_error (RB_ENOMEM) or cli_error (any
 * other code) do; returns their status. */
int cli_error_of(const char *cmd, const rb_error *err);

/* Print "routebench CMD: MESSAGE" on stderr; returns CLI_SYSTEM (out of
 * memory, an output that could not be written). */
int cli_system_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Write text to path atomically ("-" is stdout); CLI_OK, or CLI_SYSTEM
 * when it cannot be written (message printed). */
int cli_write_output(const char *cmd, const char *path, const char *text, size_t len);
/* "routebench ARG..." into buf (cap bytes, cut if longer): the command
 * as a bundle and the HTTP lab record it, an argument with a blank,
 * quote or '$' (or an empty one) in single quotes. */
void cli_command_line(int argc, char **argv, char *buf, size_t cap);

/* Can a file be created at path (its directory exists and is writable)?
 * Checked before long work, so it fails before it starts.  CLI_OK or
 * CLI_USAGE (message printed, naming what). */
int cli_check_output_file(const char *cmd, const char *what, const char *path);

/* Write text on out, then free it. */
void cli_put(FILE *out, rb_buf *text);

/* "report: DIR/report.html", then the other files of the bundle written
 * from b (the charts with something to plot). */
struct rb_bundle;
void cli_print_bundle_files(FILE *out, const char *dir, const struct rb_bundle *b);

int cmd_list(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_choose(int argc, char **argv);
int cmd_pair(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_corpus(int argc, char **argv);
int cmd_http(int argc, char **argv);

#endif
