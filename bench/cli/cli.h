/*
 * cli.h — the thin command layer of the `routebench` executable: argument
 * helpers and one function per subcommand (cmd_*.c).  Commands return the
 * process exit status: 0 success, 1 a check failed (disagreement,
 * regression, duplicates), 2 usage or input error.
 */
#ifndef RB_CLI_H
#define RB_CLI_H

#include "plugins.h"

#include <stdbool.h>
#include <stddef.h>

enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2 };

/* Does argv[*i] name option `name` ("--name value" or "--name=value")?
 * On a match *value is set (NULL plus a message on stderr when the value
 * is missing) and *i advanced past the value. */
bool cli_opt(int argc, char **argv, int *i, const char *name, const char **value);
/* Is argv[*i] exactly the flag `name`? */
bool cli_flag(char **argv, int i, const char *name);
/* Is argv[i] -h or --help? */
bool cli_is_help(const char *arg);
/* Parse an unsigned decimal / a double; false (with a message naming the
 * option) when malformed or outside [min, max]. */
bool cli_parse_u64(const char *opt, const char *s, unsigned long long min, unsigned long long max,
                   unsigned long long *out);
bool cli_parse_double(const char *opt, const char *s, double min, double max, double *out);
/* Print "routebench CMD: unknown option X (see routebench CMD --help)". */
int cli_unknown(const char *cmd, const char *arg);

/* --router-lib PATH: load a plugin library into p; false (message on
 * stderr naming cmd) when it cannot be loaded. */
bool cli_router_lib(rb_plugins *p, const char *cmd, const char *path);
/* Resolve a router spec (NAME or NAME@LIB, see plugins.h); NULL (message on
 * stderr) when there is no such router. */
const rb_router_ops *cli_router(rb_plugins *p, const char *cmd, const char *spec);

int cmd_list(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_pair(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_corpus(int argc, char **argv);

#endif
