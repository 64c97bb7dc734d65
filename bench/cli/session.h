/*
 * session.h — what `run` and `pair` share: the options they both take, and
 * a measured session over a list of scenarios that fills a result bundle,
 * prints a table per scenario and reports progress on stderr.  The session
 * itself runs in bench/suite/suite.h; this side parses, prints, writes.
 */
#ifndef RB_CLI_SESSION_H
#define RB_CLI_SESSION_H

#include "bundle.h"
#include "callgrind.h"
#include "harness.h"
#include "options.h"
#include "peer.h"
#include "plugins.h"
#include "scenario.h"
#include "suite.h"

#include <stdbool.h>
#include <stdio.h>

/* At most this many outputs of bench/report/output.h have an --export-* option. */
#define SESSION_MAX_EXPORTS 8

typedef struct session_options {
    const char *cmd; /* "run", "pair" or "choose", for messages */
    rb_suite run;    /* what is measured and how (bench/suite/suite.h) */
    const char *out; /* bundle directory, or NULL */
    const char *routes_file, *requests_file;
    bool json;                                /* --json: summary.json's document on stdout */
    const char *exports[SESSION_MAX_EXPORTS]; /* --export-* FILE, in the order of their rows */
    FILE *human;                              /* tables: stdout, or stderr with --json */
    bool peers_all;        /* --peers: every built-in peer runner that is built */
    const char *langs;     /* --lang go,rust: only the built-in runners of these languages */
    const char *inputs[2]; /* choose: the tables measured, copied into the bundle */
    size_t ninputs;
    bool verbose;          /* -v: fingerprints, checksums, the verdict's paragraph */
    const char *leave_out; /* how to leave linear out, in the command's own options; a
                            * trailing space: the other routers follow */
    double cpu_share;      /* of a core, measured before the work (progress.h) */
    double estimate_s;     /* the session's estimated duration */
} session_options;

/* Defaults: 9 trials, 1 warm-up, 100 ms, wall clock, the time metric, seed
 * 42, not pinned. */
void session_options_init(session_options *o, const char *cmd);
void session_options_free(session_options *o);

/* The options of run and pair (scenarios, conditions, metric, peers,
 * plugins), and those of every measuring command, choose too (protocol
 * and outputs), their destinations in session_options. */
extern const cli_option session_option_table[];
extern cli_option session_protocol_table[];
/* Resolve a router spec (NAME or NAME@LIB) and append it, labelled NAME for
 * a built-in router and NAME@LIB otherwise; a router already in the list
 * is not added twice.  Returns CLI_OK or CLI_USAGE (message printed). */
int session_add_router(session_options *o, const char *spec);
/* --peers: every built-in runner that is built; a note on stderr for each
 * one that is not (never an error). */
void session_add_builtin_peers(session_options *o);
/* Append ops with the given label (no resolution). */
int session_add_ops(session_options *o, const rb_router_ops *ops, const char *label);
/* Each router of a --routers list as session_add_router adds it; with list
 * NULL every router (rb_router_list_every, router_list.h: the limit when
 * limit is set, then the routers of plugins, which may be NULL).  Returns
 * CLI_OK or CLI_USAGE (message printed; an empty or too long name in the
 * list is named as --routers's). */
int session_add_routers(session_options *o, const char *list, const rb_plugins *plugins,
                        bool limit);

/* After parsing: add --routes/--requests, or the default suite when no
 * scenario was named; check that every output can be written.  Returns
 * CLI_OK or CLI_USAGE (message printed). */
int session_finish_scenarios(session_options *o);

/* Measure every scenario with the routers in o (baseline o->routers[0]),
 * filling b (initialised here; free with rb_bundle_free) and printing a
 * table per scenario on stdout.  Writes the bundle when o->out is set.
 * Returns CLI_OK, CLI_USAGE (bad input, a scenario that cannot be loaded)
 * or CLI_FAILED (a router of ours disagreed with EXPECTED or with linear on
 * any answer, verify.h, or changed its answers between replays). */
int session_run(session_options *o, int argc, char **argv, rb_bundle *b);

/* For a counted metric outside the Callgrind child: run this command under
 * Callgrind (bench/measure/callgrind.h) and return its exit status; *handled is
 * false (and nothing done) otherwise.  Prints a message and returns
 * CLI_USAGE when Callgrind cannot run; hw-instructions is checked here too
 * (a message naming --metric instructions when there is no counter). */
int session_metric_dispatch(session_options *o, int argc, char **argv, bool *handled);

/* `pair --self-test` (pair_selftest.c): router o->routers[0], effect X
 * (0.03 for 3%), runs per case, the gate's threshold when given. */
int pair_selftest(session_options *o, double effect, unsigned runs, bool gate, double fail_below);

/* The rows that session_option_table and choose's own table share, with
 * one set of limits: each gives the field's offset from its table's base
 * (and its own help text for --app-bytes), as CLI_SEED does for --seed.
 * --lang go,rust: the built-in runners of these languages only (implies
 * --peers). */
#define SESSION_OPT_LANG(field_offset)                                                             \
    CLI_OPT_STRING("--lang", "go,rust,node", field_offset,                                         \
                   "with --peers (implied): only the built-in peer runners of these languages")
#define SESSION_OPT_APP_BYTES(field_offset, text)                                                  \
    CLI_OPT_RANGE(CLI_SIZE, "--app-bytes", "N", field_offset, 64, (unsigned long long)1 << 32,     \
                  (text), .flags = CLI_SHOW_DEFAULT)

#endif
