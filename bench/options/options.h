/*
 * options.h — the one option parser of every routebench command.
 *
 * A command is described by a table of options: name (and an optional
 * second spelling), type, range, destination, help line.  The parser fills
 * the destinations from argv and `--help` is generated from the same
 * table, so each option is spelled once:
 *
 *     static const cli_option run_options[] = {
 *         CLI_OPT_RANGE(CLI_UINT, "--trials", "N", offsetof(session_options, proto.trials),
 *                       1, 100000, "measured trials per router", .flags = CLI_SHOW_DEFAULT),
 *         {0}};
 *
 * Rules, the same for every command:
 *   - "--name VALUE" and "--name=VALUE"; a flag takes no value ("--json=1"
 *     is an error); a value may not start with "--" (that is a missing
 *     value: "--out --trials 3");
 *   - numbers are decimal digits only: no sign, no blank, no "0x", no
 *     exponent for integers (" -1" and "1e3" are refused, never wrapped);
 *     a double is finite; both are checked against the option's range;
 *   - an option given twice is an error unless it is CLI_REPEAT (its last
 *     value would silently win);
 *   - options named in an option's `excludes` cannot be given with it, an
 *     option's `requires` must be given with it, CLI_REQUIRED ones must be
 *     given: all usage errors, found before any work starts;
 *   - at most one operand (an argument that is not an option) when the
 *     command has one, two when it has two (compare OLD NEW); "--" ends
 *     the options;
 *   - "-h" or "--help" anywhere asks for the help text.
 * Nothing here prints: errors come back in an rb_error ("--trials needs a
 * whole number from 1 to 100000, got '0'"), the help as text in an rb_buf;
 * the command prints them with its "routebench CMD: " prefix (cli.h).
 */
#ifndef RB_CLI_OPTIONS_H
#define RB_CLI_OPTIONS_H

#include "buf.h"
#include "base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The destination's type, at dest + table base + option offset. */
typedef enum cli_type {
    CLI_FLAG,   /* bool, set to true; takes no value */
    CLI_STRING, /* const char *, pointing into argv */
    CLI_U64,    /* uint64_t in [min, max] */
    CLI_SIZE,   /* size_t in [min, max] */
    CLI_UINT,   /* unsigned in [min, max] */
    CLI_U32,    /* uint32_t in [min, max] */
    CLI_INT,    /* int in [min, max] (min, max >= 0) */
    CLI_DOUBLE, /* double in [dmin, dmax] */
    CLI_SHARE,  /* uint32_t parts per million of a share written 0..1 */
    CLI_CHOICE, /* int: the value of the word among choices */
    CLI_CALL,   /* call(field, value, err); for lists and loaded things */
} cli_type;

typedef struct cli_choice {
    const char *name;
    int value;
} cli_choice;

enum {
    CLI_REQUIRED = 1u,     /* must be given */
    CLI_REPEAT = 2u,       /* may be given more than once (CLI_CALL or CLI_FLAG) */
    CLI_SHOW_DEFAULT = 4u, /* help shows the value the destination holds before parsing */
};

typedef struct cli_option {
    const char *name;            /* "--trials"; NULL ends a table */
    const char *alias;           /* a second spelling ("--scenario"), or NULL */
    cli_type type;               /* */
    const char *metavar;         /* "N" in "--trials N"; NULL for flags */
    size_t offset;               /* of the destination within the table's base */
    unsigned long long min, max; /* integer range */
    double dmin, dmax;           /* CLI_DOUBLE range */
    const cli_choice *choices;   /* CLI_CHOICE words, ended by {NULL, 0} */
    /* CLI_CALL: take value into field; RB_OK or a status with err set */
    int (*call)(void *field, const char *value, rb_error *err);
    unsigned flags;       /* CLI_REQUIRED, CLI_REPEAT, CLI_SHOW_DEFAULT */
    const char *excludes; /* space-separated options that cannot be given with it */
    const char *requires; /* space-separated options that must be given with it */
    const char *help;     /* one paragraph; the generator wraps it */
} cli_option;

/* A group of options whose destinations live at dest + base. */
typedef struct cli_table {
    const char *title; /* "options", "measurement (run and pair)" */
    const cli_option *options;
    size_t base;
} cli_table;

#define CLI_MAX_TABLES 4

typedef struct cli_command {
    const char *name; /* "run", "corpus gen": messages and "usage: routebench NAME" */
    /* what follows the name in the usage line(s); lines end "\n", a line
     * that starts with a blank continues the one before */
    const char *synopsis;
    const char *about; /* what the command does: paragraphs, wrapped by the generator */
    cli_table tables[CLI_MAX_TABLES];
    const char *operand;   /* metavar of the first operand ("DIR"), or NULL for none */
    size_t operand_offset; /* const char * destination of the operand */
    const char *operand2;  /* metavar of a second operand ("NEW"), or NULL */
    size_t operand2_offset;
    bool operand_required; /* both operands, when there are two */
    const char *epilog;    /* printed as is at the end (exit status), or NULL */
} cli_command;

/* Row constructors, one per kind of option, as git's parse-options has
 * OPT_STRING and OPT_BOOL: a table reads one option per row, its name,
 * metavar and destination first.  The help text comes last and may be
 * followed by the row's other fields as designated initializers:
 *
 *     CLI_OPT_STRING("--routes", "FILE", offsetof(opts, routes), "the route table",
 *                    .requires = "--requests"),
 *
 * The help is the first of the variadic arguments, so a row without extra
 * fields still gives one, as C11 wants.  An extra field is one the
 * constructor leaves alone (.alias, .flags, .excludes, .requires): giving
 * one it sets is an error under -Werror (-Woverride-init). */
#define CLI_OPT_FLAG(option, field_offset, ...)                                                    \
    {                                                                                              \
        .name = (option), .type = CLI_FLAG, .offset = (field_offset), .help = __VA_ARGS__          \
    }
#define CLI_OPT_STRING(option, meta, field_offset, ...)                                            \
    {                                                                                              \
        .name = (option), .type = CLI_STRING, .metavar = (meta), .offset = (field_offset),         \
        .help = __VA_ARGS__                                                                        \
    }
/* A whole number of type CLI_U64, CLI_SIZE, CLI_UINT, CLI_U32 or CLI_INT in [lo, hi]. */
#define CLI_OPT_RANGE(int_type, option, meta, field_offset, lo, hi, ...)                           \
    {                                                                                              \
        .name = (option), .type = (int_type), .metavar = (meta), .offset = (field_offset),         \
        .min = (lo), .max = (hi), .help = __VA_ARGS__                                              \
    }
/* A finite double in [lo, hi]. */
#define CLI_OPT_DOUBLE(option, meta, field_offset, lo, hi, ...)                                    \
    {                                                                                              \
        .name = (option), .type = CLI_DOUBLE, .metavar = (meta), .offset = (field_offset),         \
        .dmin = (lo), .dmax = (hi), .help = __VA_ARGS__                                            \
    }
#define CLI_OPT_SHARE(option, meta, field_offset, ...)                                             \
    {                                                                                              \
        .name = (option), .type = CLI_SHARE, .metavar = (meta), .offset = (field_offset),          \
        .help = __VA_ARGS__                                                                        \
    }
#define CLI_OPT_CHOICE(option, meta, field_offset, words, ...)                                     \
    {                                                                                              \
        .name = (option), .type = CLI_CHOICE, .metavar = (meta), .offset = (field_offset),         \
        .choices = (words), .help = __VA_ARGS__                                                    \
    }
#define CLI_OPT_CALL(option, meta, field_offset, handler, ...)                                     \
    {                                                                                              \
        .name = (option), .type = CLI_CALL, .metavar = (meta), .offset = (field_offset),           \
        .call = (handler), .help = __VA_ARGS__                                                     \
    }

/* The largest seed any command takes: seeds are JSON numbers in
 * summary.json, exact only up to 2^53 - 1.  Every --seed uses CLI_SEED. */
#define CLI_SEED_MAX ((1ull << 53) - 1)
#define CLI_SEED(field_offset, seed_flags, text)                                                   \
    CLI_OPT_RANGE(CLI_U64, "--seed", "S", field_offset, 0, CLI_SEED_MAX, (text),                   \
                  .flags = (seed_flags))

/* cli_parse results besides a negative rb status. */
enum { CLI_PARSED = 0, CLI_HELP = 1 };

/* Fill dest from argv[1..argc) (argv[0] is the command's name).  Returns
 * CLI_PARSED, CLI_HELP (-h/--help was given; nothing else is looked at), or
 * RB_EINVAL with err naming the option and the rule; a CLI_CALL's own
 * status passes through. */
int cli_parse(const cli_command *c, void *dest, int argc, char **argv, rb_error *err);

/* The help text of c into out; defaults is a struct holding the defaults
 * (for CLI_SHOW_DEFAULT), laid out as dest. */
void cli_help(const cli_command *c, const void *defaults, rb_buf *out);

/* The number parsers the table types use, for values that do not come from
 * an option (digits only, within [min, max]; RB_EINVAL with a message
 * naming what when not). */
int cli_parse_u64(const char *what, const char *s, unsigned long long min, unsigned long long max,
                  unsigned long long *out, rb_error *err);
int cli_parse_double(const char *what, const char *s, double min, double max, double *out,
                     rb_error *err);

#endif
