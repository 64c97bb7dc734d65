/*
 * cmd_list.c — `routebench list`: routers with their features, shipped
 * corpora; --json for scripts.
 */
#include "catalog.h"
#include "cli.h"

#include <stdio.h>

typedef struct list_options {
    rb_plugins plugins;
    bool json;
} list_options;

static const cli_option list_table[] = {
    CLI_ROUTER_LIB(offsetof(list_options, plugins),
                   "load a plugin library first (repeatable); its routers are listed as NAME@LIB"),
    CLI_OPT_FLAG("--json", offsetof(list_options, json),
                 "the list as JSON on stdout (schema routebench-list, docs/measurement.md)"),
    {0}};

static const cli_command list_command = {
    .name = "list",
    .synopsis = "[--router-lib LIB ...] [--json]\n",
    .about = "Lists the routers (name, features, summary), the routers of each plugin library "
             "--router-lib loads (named NAME@LIB), the built-in peer runners (built, or what "
             "to install: scripts/setup.sh --peers) and the shipped corpora.\n",
    .tables = {{"options", list_table, 0}},
    .epilog = "exit status: 0 ok, 2 usage error (or a library that cannot be loaded)\n",
};

int cmd_list(int argc, char **argv)
{
    list_options o = {0};
    rb_plugins_init(&o.plugins);
    int status = cli_args(&list_command, &o, argc, argv);
    if (status == CLI_CONTINUE && o.json) {
        rb_buf text = {0};
        rb_error err;
        status = rb_catalog_json(&o.plugins, &text, &err) < 0
                     ? cli_system_error("list", "%s", err.message)
                     : cli_write_output("list", "-", text.data, text.len);
        rb_buf_free(&text);
    } else if (status == CLI_CONTINUE) {
        rb_buf text = {0};
        rb_catalog_text(&o.plugins, &text);
        status = text.failed ? cli_system_error("list", "out of memory") : CLI_OK;
        cli_put(stdout, &text);
    }
    rb_plugins_close(&o.plugins);
    return status;
}
