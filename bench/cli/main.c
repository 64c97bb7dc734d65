/*
 * main.c — `routebench`: dispatches to one subcommand (cmd_*.c).
 */
#include "cli.h"

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
    {"pair", cmd_pair, "two routers paired: speed ratio, interval, CI gate (--fail-below)"},
    {"report", cmd_report, "re-render report.md and charts of a bundle from its JSON + CSV"},
    {"corpus", cmd_corpus, "generate, check and import route tables and request tables"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: routebench COMMAND [options]   (routebench COMMAND --help for more)\n\n"
                 "routebench measures URL-router algorithms: in-process lookups, not HTTP\n"
                 "requests per second.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (cli_is_help(argv[1]) || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(argv[1], commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
    }
    fprintf(stderr, "routebench: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return CLI_USAGE;
}
