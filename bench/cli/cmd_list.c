/*
 * cmd_list.c — `routebench list`: routers with their features, shipped
 * corpora.
 */
#include "cli.h"
#include "router.h"
#include "shipped.h"

#include <stdio.h>

static void features(unsigned f, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s %s %s", f & RB_FEAT_PARAMS ? "params" : "-",
             f & RB_FEAT_CATCHALL ? "catch-all" : "-", f & RB_FEAT_GLOB ? "glob" : "-");
}

static void print_router(const rb_router_ops *ops, const char *label)
{
    char f[64];
    features(rb_ops_features(ops), f, sizeof f);
    printf("  %-8s %-24s %s%s\n", label, f, rb_ops_features(ops) & RB_FEAT_PEER ? "[peer] " : "",
           rb_ops_summary(ops));
}

int cmd_list(int argc, char **argv)
{
    rb_plugins plugins;
    rb_plugins_init(&plugins);
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if (cli_is_help(argv[i])) {
            printf("usage: routebench list [--router-lib LIB ...]\n\nLists the routers (name, "
                   "features, summary), the routers of each plugin library\n--router-lib "
                   "loads (named NAME@LIB), and the shipped corpora.\n");
            rb_plugins_close(&plugins);
            return CLI_OK;
        }
        if (!cli_opt(argc, argv, &i, "--router-lib", &v)) {
            rb_plugins_close(&plugins);
            return cli_unknown("list", argv[i]);
        }
        if (!v || !cli_router_lib(&plugins, "list", v)) {
            rb_plugins_close(&plugins);
            return CLI_USAGE;
        }
    }
    printf("routers:\n");
    for (size_t i = 0; i < rb_registry_count(); i++)
        print_router(rb_registry_at(i), rb_ops_name(rb_registry_at(i)));
    for (size_t i = 0; i < rb_plugins_count(&plugins); i++) {
        const rb_router_ops *ops = rb_plugins_ops(&plugins, i);
        char label[512];
        snprintf(label, sizeof label, "%s@%s", rb_ops_name(ops), rb_plugins_lib(&plugins, i));
        print_router(ops, label);
    }
    printf("\nshipped corpora (corpus/data/):\n");
    for (size_t i = 0; i < rb_shipped_count(); i++) printf("  %s\n", rb_shipped_name(i));
    rb_plugins_close(&plugins);
    return CLI_OK;
}
