/*
 * main.c — `routebench`: dispatches to one subcommand (cmd_*.c); --version,
 * and `help CMD`, which is CMD --help.
 */
#include "cli.h"
#include "sysinfo.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"list", cmd_list, "routers, their features, shipped corpora"},
    {"verify", cmd_verify, "check a router against a request table (conformance)"},
    {"run", cmd_run, "benchmark suite: paired trials, table, result bundle (--out DIR)"},
    {"choose", cmd_choose, "which router for my table: verdict first (warm and cold), then tables"},
    {"pair", cmd_pair, "two routers paired: speed ratio, interval, CI gate (--fail-below)"},
    {"report", cmd_report, "re-render report.md and charts of a bundle from its JSON + CSV"},
    {"compare", cmd_compare, "two saved results: ratio NEW vs OLD per router, gate (--fail-below)"},
    {"history", cmd_history, "saved results across commits: series, steps, chart (--svg)"},
    {"http", cmd_http, "routers inside a real HTTP server: gate, capacity, latency (loopback)"},
    {"corpus", cmd_corpus, "generate, check and import route tables and request tables"},
    {"compile", cmd_compile, "a router generated for one fixed table, as C (plain C11 file)"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fprintf(out, "usage: routebench COMMAND [options]   (routebench help COMMAND for more)\n"
                 "       routebench --version\n\n"
                 "routebench measures URL-router algorithms: in-process lookups, not HTTP\n"
                 "requests per second.\n\ncommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
}

static const command *find(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(name, commands[i].name) == 0) return &commands[i];
    return NULL;
}

static int version(void)
{
    rb_bundle b;
    rb_bundle_init(&b);
    rb_sysinfo_tool(&b);
    printf("routebench %s\ncommit %s\ncompiler %s\nbuild type %s%s%s\nflags %s\n", b.version,
           b.commit, b.compiler, b.build_type, b.optimized ? " (optimised)" : " (NOT optimised)",
           b.sanitized ? " with sanitizers" : "", b.flags);
    rb_bundle_free(&b);
    return CLI_OK;
}

/* `routebench help CMD [SUB]`: CMD [SUB] --help. */
static int help(int argc, char **argv)
{
    if (argc < 2) {
        usage(stdout);
        return CLI_OK;
    }
    const command *c = find(argv[1]);
    if (!c) {
        return cli_error("help", "unknown command '%s' (routebench --help lists them)", argv[1]);
    }
    char *args[4] = {argv[1], argc > 2 ? argv[2] : "--help", "--help", NULL};
    return c->run(argc > 2 ? 3 : 2, args);
}

/* Output that could not be written is an error of every command: stdout
 * is flushed here, and a failure (a full disk, /dev/full, a closed pipe)
 * turns status into CLI_SYSTEM. */
static int lost_output(const char *cmd, int status)
{
    if (fflush(stdout) == 0 && !ferror(stdout)) return status;
    int saved = errno;
    if (status == CLI_SYSTEM) return status; /* the command said why already */
    return cli_system_error(cmd, "writing to stdout: %s", strerror(saved ? saved : EIO));
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        usage(stdout);
        return CLI_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) return version();
    if (strcmp(argv[1], "help") == 0) return help(argc - 1, argv + 1);
    const command *c = find(argv[1]);
    if (c) return c->run(argc - 1, argv + 1);
    return cli_error("", "unknown command '%s' (routebench --help lists them)", argv[1]);
}

int main(int argc, char **argv)
{
    int status = dispatch(argc, argv);
    return lost_output(argc > 1 && find(argv[1]) ? argv[1] : "", status);
}
