/*
 * choose_tables.c — the tables of `routebench choose` (choose_tables.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "choose_tables.h"
#include "base_internal.h"
#include "reqgen.h"
#include "table.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

int rb_choose_tables_dir(rb_choose_tables *t, const char *tmp, rb_error *err)
{
    memset(t, 0, sizeof *t);
    const char *where = tmp && *tmp ? tmp : "/tmp";
    snprintf(t->dir, sizeof t->dir, "%s/routebench-choose-XXXXXX", where);
    if (!mkdtemp(t->dir)) {
        t->dir[0] = '\0';
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot create a temporary directory in %s",
                         where);
    }
    return RB_OK;
}

/* dir/NAME.routes and dir/NAME.requests, named after the source: the
 * scenario takes the routes file's name. */
static void name_files(const rb_choose_input *in, rb_choose_tables *t)
{
    const char *src = in->openapi ? in->openapi : in->routes, *slash = strrchr(src, '/');
    char base[128];
    snprintf(base, sizeof base, "%s", slash ? slash + 1 : src);
    base[strcspn(base, ".")] = '\0';
    if (!*base) snprintf(base, sizeof base, "table");
    snprintf(t->routes, sizeof t->routes, "%s/%s.routes", t->dir, base);
    snprintf(t->requests, sizeof t->requests, "%s/%s.requests", t->dir, base);
}

static int read_routes(const rb_choose_input *in, rb_choose_tables *t, rb_route_table *routes,
                       rb_error *err)
{
    if (!in->openapi) return rb_route_table_read(in->routes, routes, err);
    rb_openapi_options opt = {in->base_path};
    int rc = rb_openapi_import_file_with(in->openapi, &opt, routes, &t->openapi, err);
    t->imported = rc == RB_OK;
    return rc;
}

static int read_requests(const rb_choose_input *in, rb_choose_tables *t,
                         const rb_route_table *routes, rb_request_table *reqs, rb_error *err)
{
    if (in->requests) return rb_request_table_read(in->requests, reqs, err);
    rb_reqgen_config cfg;
    rb_reqgen_config_init(&cfg);
    cfg.count = in->count;
    cfg.seed = in->seed;
    int rc = rb_requests_generate(routes, &cfg, reqs, NULL, err);
    t->generated = rc == RB_OK;
    if (t->generated) t->generated_count = reqs->count;
    return rc;
}

int rb_choose_tables_make(const rb_choose_input *in, rb_choose_tables *t, rb_error *err)
{
    rb_route_table routes = {0};
    rb_request_table reqs = {0};
    name_files(in, t);
    int rc = read_routes(in, t, &routes, err);
    if (rc == RB_OK) rc = read_requests(in, t, &routes, &reqs, err);
    if (rc == RB_OK) rc = rb_route_table_write(t->routes, &routes, NULL, err);
    if (rc == RB_OK) rc = rb_request_table_write(t->requests, &reqs, err);
    rb_route_table_free(&routes);
    rb_request_table_free(&reqs);
    return rc;
}

/* The tables measured go into the bundle, so its sources and fingerprints
 * name files that exist. */
void rb_choose_tables_notes(const rb_choose_input *in, bool in_bundle, rb_choose_tables *t)
{
    const char *rname = strrchr(t->routes, '/') + 1, *qname = strrchr(t->requests, '/') + 1;
    const char *kind = in->openapi ? "OpenAPI document" : "routes file";
    const char *src = in->openapi ? in->openapi : in->routes;
    if (in_bundle)
        snprintf(t->note, sizeof t->note, "%s in the bundle, from the %s %s", rname, kind, src);
    else
        snprintf(t->note, sizeof t->note, "the %s %s", kind, src);
    if (in->requests)
        snprintf(t->rnote, sizeof t->rnote, "%s", in->requests);
    else
        snprintf(t->rnote, sizeof t->rnote, "%s%sgenerated from the routes, seed %llu%s",
                 in_bundle ? qname : "", in_bundle ? " in the bundle, " : "",
                 (unsigned long long)in->seed, in_bundle ? "" : " (--out keeps them)");
}

void rb_choose_tables_remove(const rb_choose_tables *t)
{
    if (!t->dir[0]) return;
    remove(t->routes);
    remove(t->requests);
    rmdir(t->dir);
}
