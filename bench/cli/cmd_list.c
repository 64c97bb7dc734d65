/*
 * cmd_list.c — `routebench list`: routers with their features, shipped
 * corpora; --json for scripts.
 */
#include "cli.h"
#include "compiled.h"
#include "feature_names.h"
#include "peer.h"
#include "router.h"
#include "shipped.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct list_options {
    rb_plugins plugins;
    bool json;
} list_options;

static const cli_option list_table[] = {
    {.name = "--router-lib",
     .type = CLI_CALL,
     .metavar = "LIB",
     .offset = offsetof(list_options, plugins),
     .call = cli_take_router_lib,
     .flags = CLI_REPEAT,
     .help = "load a plugin library first (repeatable); its routers are listed as NAME@LIB"},
    {.name = "--json",
     .type = CLI_FLAG,
     .offset = offsetof(list_options, json),
     .help = "the list as JSON on stdout (schema routebench-list, docs/measurement.md)"},
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

#define LIST_COLUMNS 100 /* a line of the list ends before this column */

/* One column per feature: its name when the router has it, else "-". */
static void features(unsigned f, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < rb_feature_count; i++) {
        int w = snprintf(buf + n, cap > n ? cap - n : 0, "%s%s", i ? " " : "",
                         f & rb_feature_names[i].bit ? rb_feature_names[i].name : "-");
        if (w > 0) n += (size_t)w;
    }
}

/* A router's line: name, features, then its summary wrapped before 100
 * columns under itself. */
static void print_router(const rb_router_ops *ops, const char *label)
{
    char f[64], summary[512];
    features(rb_ops_features(ops), f, sizeof f);
    snprintf(summary, sizeof summary, "%s%s", rb_ops_features(ops) & RB_FEAT_PEER ? "[peer] " : "",
             rb_ops_summary(ops));
    rb_buf line = {0};
    rb_buf_printf(&line, "  %-8s %-32s ", label, f);
    rb_buf_wrap(&line, summary, 44, line.len, LIST_COLUMNS);
    if (line.data) fputs(line.data, stdout);
    rb_buf_free(&line);
}

static cJSON *router_json(const rb_router_ops *ops, const char *label, const char *lib)
{
    cJSON *r = cJSON_CreateObject();
    unsigned f = rb_ops_features(ops);
    cJSON_AddStringToObject(r, "name", label);
    cJSON_AddStringToObject(r, "summary", rb_ops_summary(ops));
    cJSON *fa = cJSON_AddArrayToObject(r, "features");
    for (size_t i = 0; i < rb_feature_count; i++)
        if (f & rb_feature_names[i].bit)
            cJSON_AddItemToArray(fa, cJSON_CreateString(rb_feature_names[i].name));
    cJSON_AddBoolToObject(r, "reference", strncmp(rb_ops_summary(ops), "reference", 9) == 0);
    cJSON_AddBoolToObject(r, "peer", (f & RB_FEAT_PEER) != 0);
    cJSON_AddBoolToObject(r, "generated", ops == &rb_bench_compiled_ops);
    if (lib)
        cJSON_AddStringToObject(r, "library", lib);
    else
        cJSON_AddNullToObject(r, "library");
    return r;
}

static int print_json(const rb_plugins *plugins)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "schema", "routebench-list");
    cJSON_AddNumberToObject(o, "schema_version", 1);
    cJSON *routers = cJSON_AddArrayToObject(o, "routers");
    for (size_t i = 0; i < rb_registry_count(); i++)
        cJSON_AddItemToArray(routers,
                             router_json(rb_registry_at(i), rb_ops_name(rb_registry_at(i)), NULL));
    /* the benchmark's own: a router generated for the table, compiled on the fly */
    cJSON_AddItemToArray(routers, router_json(&rb_bench_compiled_ops, RB_COMPILED_NAME, NULL));
    for (size_t i = 0; i < rb_plugins_count(plugins); i++) {
        const rb_router_ops *ops = rb_plugins_ops(plugins, i);
        char label[512];
        snprintf(label, sizeof label, "%s@%s", rb_ops_name(ops), rb_plugins_lib(plugins, i));
        cJSON_AddItemToArray(routers, router_json(ops, label, rb_plugins_lib(plugins, i)));
    }
    cJSON *peers = cJSON_AddArrayToObject(o, "peer_runners");
    for (size_t i = 0; i < rb_peer_builtin_count(); i++) {
        rb_peer_spec spec;
        rb_error err;
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "name", rb_peer_builtin_name(i));
        bool built = rb_peer_builtin(rb_peer_builtin_name(i), NULL, &spec, &err) == RB_OK;
        cJSON_AddBoolToObject(p, "built", built);
        cJSON_AddStringToObject(p, built ? "summary" : "missing",
                                built ? spec.summary : err.message);
        cJSON_AddItemToArray(peers, p);
    }
    cJSON *corpora = cJSON_AddArrayToObject(o, "corpora");
    for (size_t i = 0; i < rb_shipped_count(); i++) {
        char path[4096];
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "name", rb_shipped_name(i));
        if (rb_shipped_path(rb_shipped_name(i), "routes", path, sizeof path))
            cJSON_AddStringToObject(c, "routes", path);
        if (rb_shipped_path(rb_shipped_name(i), "requests", path, sizeof path))
            cJSON_AddStringToObject(c, "requests", path);
        cJSON_AddItemToArray(corpora, c);
    }
    char *s = cJSON_Print(o);
    cJSON_Delete(o);
    if (!s) return cli_system_error("list", "out of memory");
    puts(s);
    free(s);
    return CLI_OK;
}

int cmd_list(int argc, char **argv)
{
    list_options o = {0};
    rb_plugins_init(&o.plugins);
    int status = cli_args(&list_command, &o, argc, argv);
    if (status == CLI_CONTINUE && o.json) {
        status = print_json(&o.plugins);
    } else if (status == CLI_CONTINUE) {
        printf("routers:\n");
        for (size_t i = 0; i < rb_registry_count(); i++)
            print_router(rb_registry_at(i), rb_ops_name(rb_registry_at(i)));
        for (size_t i = 0; i < rb_plugins_count(&o.plugins); i++) {
            const rb_router_ops *ops = rb_plugins_ops(&o.plugins, i);
            char label[512];
            snprintf(label, sizeof label, "%s@%s", rb_ops_name(ops), rb_plugins_lib(&o.plugins, i));
            print_router(ops, label);
        }
        printf("\ngenerated for the table (routebench run --routers compiled; needs a C "
               "compiler, docs/compile.md):\n");
        print_router(&rb_bench_compiled_ops, RB_COMPILED_NAME);
        printf("\npeer runners (routebench run --peers, or by name in --routers):\n");
        size_t missing = 0;
        for (size_t i = 0; i < rb_peer_builtin_count(); i++) {
            rb_peer_spec spec;
            rb_error err;
            const char *name = rb_peer_builtin_name(i);
            if (rb_peer_builtin(name, NULL, &spec, &err) == RB_OK) {
                printf("  %-18s %s\n", name, spec.summary);
            } else {
                printf("  %-18s not built\n", name);
                missing++;
            }
        }
        if (missing) /* the reason of each, one long line apiece, is in --json */
            printf("  (not built: scripts/setup.sh --peers installs and builds them;\n"
                   "   routebench list --json says what each one misses)\n");
        printf("\nshipped corpora (corpus/data/):\n");
        for (size_t i = 0; i < rb_shipped_count(); i++) printf("  %s\n", rb_shipped_name(i));
        status = CLI_OK;
    }
    rb_plugins_close(&o.plugins);
    return status;
}
