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

int cmd_list(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            printf("usage: routebench list\n\nLists the routers (name, features, summary) and "
                   "the shipped corpora.\n");
            return CLI_OK;
        }
        return cli_unknown("list", argv[i]);
    }
    printf("routers:\n");
    for (size_t i = 0; i < rb_registry_count(); i++) {
        const rb_router_ops *ops = rb_registry_at(i);
        char f[64];
        features(rb_ops_features(ops), f, sizeof f);
        printf("  %-8s %-24s %s\n", rb_ops_name(ops), f, rb_ops_summary(ops));
    }
    printf("\nshipped corpora (corpus/data/):\n");
    for (size_t i = 0; i < rb_shipped_count(); i++) printf("  %s\n", rb_shipped_name(i));
    return CLI_OK;
}
