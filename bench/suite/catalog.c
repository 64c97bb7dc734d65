/*
 * catalog.c — what a session can measure, as `routebench list` shows it
 * (catalog.h).
 */
#include "catalog.h"

#include "base_internal.h"
#include "compiled.h"
#include "feature_names.h"
#include "json_out.h"
#include "peer.h"
#include "router.h"
#include "shipped.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COLUMNS 100 /* a line of the list ends before this column */

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
static void router_line(rb_buf *out, const rb_router_ops *ops, const char *label)
{
    char f[64], summary[512];
    features(rb_ops_features(ops), f, sizeof f);
    snprintf(summary, sizeof summary, "%s%s", rb_ops_features(ops) & RB_FEAT_PEER ? "[peer] " : "",
             rb_ops_summary(ops));
    size_t start = out->len;
    rb_buf_printf(out, "  %-8s %-32s ", label, f);
    rb_buf_wrap(out, summary, 44, out->len - start, COLUMNS);
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

int rb_catalog_json(const rb_plugins *plugins, rb_buf *out, rb_error *err)
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
        rb_error why;
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "name", rb_peer_builtin_name(i));
        bool built = rb_peer_builtin(rb_peer_builtin_name(i), NULL, &spec, &why) == RB_OK;
        cJSON_AddBoolToObject(p, "built", built);
        cJSON_AddStringToObject(p, built ? "summary" : "missing",
                                built ? spec.summary : why.message);
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
    return rb__json_out(o, out, NULL, err);
}

void rb_catalog_text(const rb_plugins *plugins, rb_buf *out)
{
    rb_buf_printf(out, "routers:\n");
    for (size_t i = 0; i < rb_registry_count(); i++)
        router_line(out, rb_registry_at(i), rb_ops_name(rb_registry_at(i)));
    for (size_t i = 0; i < rb_plugins_count(plugins); i++) {
        const rb_router_ops *ops = rb_plugins_ops(plugins, i);
        char label[512];
        snprintf(label, sizeof label, "%s@%s", rb_ops_name(ops), rb_plugins_lib(plugins, i));
        router_line(out, ops, label);
    }
    rb_buf_printf(out, "\ngenerated for the table (routebench run --routers compiled; needs a C "
                       "compiler, docs/compile.md):\n");
    router_line(out, &rb_bench_compiled_ops, RB_COMPILED_NAME);
    rb_buf_printf(out, "\npeer runners (routebench run --peers, or by name in --routers):\n");
    size_t missing = 0;
    for (size_t i = 0; i < rb_peer_builtin_count(); i++) {
        rb_peer_spec spec;
        rb_error err;
        const char *name = rb_peer_builtin_name(i);
        if (rb_peer_builtin(name, NULL, &spec, &err) == RB_OK) {
            rb_buf_printf(out, "  %-18s %s\n", name, spec.summary);
        } else {
            rb_buf_printf(out, "  %-18s not built\n", name);
            missing++;
        }
    }
    if (missing) /* the reason of each, one long line apiece, is in --json */
        rb_buf_printf(out, "  (not built: scripts/setup.sh --peers installs and builds them;\n"
                           "   routebench list --json says what each one misses)\n");
    rb_buf_printf(out, "\nshipped corpora (corpus/data/):\n");
    for (size_t i = 0; i < rb_shipped_count(); i++)
        rb_buf_printf(out, "  %s\n", rb_shipped_name(i));
}
