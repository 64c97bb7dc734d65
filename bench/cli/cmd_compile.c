/*
 * cmd_compile.c — `routebench compile --routes FILE [-o OUT] [--prefix P]`:
 * a C file with a router generated for exactly that table (corpus/compile.h,
 * docs/compile.md), written whole or not at all.
 */
#include "cli.h"
#include "compile.h"
#include "file.h"
#include "table_stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most bytes read from stdin (a routes file of 1M routes is ~40 MB). */
#define COMPILE_STDIN_MAX ((size_t)256 << 20)

typedef struct compile_options {
    const char *routes;
    const char *out;
    const char *prefix;
} compile_options;

static const cli_option compile_table[] = {
    CLI_OPT_STRING("--routes", "FILE", offsetof(compile_options, routes),
                   "the route table (routes file format, docs/corpora.md); - reads stdin",
                   .flags = CLI_REQUIRED),
    CLI_OPT_STRING("-o", "FILE", offsetof(compile_options, out),
                   "where the C file goes (written whole or not at all); - is stdout",
                   .alias = "--out", .flags = CLI_SHOW_DEFAULT),
    CLI_OPT_STRING("--prefix", "NAME", offsetof(compile_options, prefix),
                   "the prefix of every name the file defines (NAME_lookup, NAME_match): a C "
                   "identifier of up to 40 bytes",
                   .flags = CLI_SHOW_DEFAULT),
    {0}};

static const cli_command compile_command = {
    .name = "compile",
    .synopsis = "--routes FILE [-o FILE] [--prefix NAME]\n",
    .about = "Generates a router for exactly this route table: one self-contained C11 file "
             "(standard headers only) whose NAME_lookup(method, path, len, &match) gives the "
             "answers of routebench's routers on the table (route id = the route's place in "
             "the file, from 0; captures as spans; 405 with the allowed methods).  Globs and "
             "** are refused with the route named.  Compiled with -DRB_COMPILED_PLUGIN the "
             "file is also a routebench plugin for this table (docs/compile.md).\n\n"
             "example:\n"
             "  routebench compile --routes corpus/data/github.routes -o router.c\n"
             "  cc -O2 -c router.c\n",
    .tables = {{"options", compile_table, 0}},
    .epilog = "exit status: 0 ok, 2 usage or input error (a malformed table, a refused\n"
              "             route)\n",
};

/* The table from path, or from stdin for "-". */
static int read_routes(const char *path, rb_route_table *t, rb_error *err)
{
    if (strcmp(path, "-") != 0) return rb_route_table_read(path, t, err);
    return rb_route_table_read_stream(stdin, "stdin", COMPILE_STDIN_MAX, t, err);
}

int cmd_compile(int argc, char **argv)
{
    compile_options o = {.out = "router.c", .prefix = RB_COMPILE_DEFAULT_PREFIX};
    int status = cli_args(&compile_command, &o, argc, argv);
    if (status != CLI_CONTINUE) return status;
    status = cli_check_output_file("compile", "-o", o.out);
    if (status != CLI_OK) return status;
    rb_route_table t;
    rb_error err;
    if (read_routes(o.routes, &t, &err) < 0) return cli_error("compile", "%s", err.message);
    rb_buf src = {0};
    int rc =
        rb_compile_table(&t, strcmp(o.routes, "-") == 0 ? "stdin" : o.routes, o.prefix, &src, &err);
    size_t count = t.count;
    rb_route_table_free(&t);
    if (rc < 0) {
        rb_buf_free(&src);
        return rc == RB_ENOMEM ? cli_system_error("compile", "%s", err.message)
                               : cli_error("compile", "%s", err.message);
    }
    status = cli_write_output("compile", o.out, src.data, src.len);
    if (status == CLI_OK && strcmp(o.out, "-") != 0)
        fprintf(stderr, "routebench compile: %zu routes -> %s (%zu bytes of C, prefix %s)\n", count,
                o.out, src.len, o.prefix);
    rb_buf_free(&src);
    return status;
}
