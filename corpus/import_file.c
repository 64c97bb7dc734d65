/*
 * import_file.c — an OpenAPI document as a routes file (import_file.h).
 */
#include "import_file.h"

#include "base_internal.h"

#include <stdio.h>
#include <string.h>

int rb_openapi_import_text(const char *path, const rb_openapi_options *opt, bool header,
                           rb_route_table *t, rb_openapi_report *rep, rb_buf *text, rb_error *err)
{
    int rc = rb_openapi_import_file_with(path, opt, t, rep, err);
    if (rc < 0) return rc;
    char head[600];
    snprintf(head, sizeof head,
             "imported from %s (%s %s%s%s%s) by routebench corpus import\n"
             "every operation (path x method) in document order%s%s%s",
             path, rep->spec, rep->version, rep->title[0] ? ", \"" : "", rep->title,
             rep->title[0] ? "\"" : "", rep->base_path[0] ? ", under the base path " : "",
             rep->base_path, rep->base_path[0] ? "" : ", no base path");
    rc = rb_route_table_check_text(t, err);
    if (rc < 0) {
        rb_route_table_free(t);
        return rc;
    }
    rb_route_table_text(t, header ? head : NULL, text);
    if (!text->failed) return RB_OK;
    rb_route_table_free(t);
    return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
}

void rb_openapi_import_summary(const rb_openapi_report *rep, const rb_route_table *t,
                               const char *path, const char *out, const rb_openapi_options *opt,
                               rb_buf *b)
{
    rb_buf_printf(b, "%zu routes from %zu paths of %s (%s %s)%s%s\n", rep->routes, rep->paths, path,
                  rep->spec, rep->version, out ? " -> " : "", out ? out : "");
    if (rep->base_path[0])
        rb_buf_printf(b, "  base path %s (from %s) prefixed to every route\n", rep->base_path,
                      rep->base_from);
    else
        rb_buf_printf(b, "  no base path (%s)\n",
                      opt->base_path && strcmp(opt->base_path, "none") == 0
                          ? "--base-path none"
                          : "the document gives none");
    if (rep->server_bases > 1)
        rb_buf_printf(b,
                      "  servers lists %zu base paths: servers[0]'s was used; another with "
                      "--base-path (e.g. --base-path %s), or --base-path none\n",
                      rep->server_bases, rep->other_base);
    if (rep->variants)
        rb_buf_printf(b,
                      "  %zu path keys with a #fragment or ?query routed as their path: %zu "
                      "operations merged into the route of the same method and path\n",
                      rep->variants, rep->merged);
    for (size_t i = 0; i < rep->merged && i < RB_OPENAPI_NOTES; i++)
        rb_buf_printf(b, "    %s\n", rep->merges[i]);
    if (rep->merged > RB_OPENAPI_NOTES)
        rb_buf_printf(b, "    ... and %zu more\n", rep->merged - RB_OPENAPI_NOTES);
    if (rep->templates)
        rb_buf_printf(b, "  %zu segments with templates inside ({Sid}.json)\n", rep->templates);
    if (rep->globs)
        rb_buf_printf(b, "  %zu segments with touching params ({a}{b}) written as globs (?*)\n",
                      rep->globs);
    if (rep->renamed)
        rb_buf_printf(b, "  %zu parameter names rewritten, first %s\n", rep->renamed,
                      rep->first_renamed);
    if (rep->skipped)
        rb_buf_printf(b, "  %zu operations skipped (no such method here), first %s\n", rep->skipped,
                      rep->first_skipped);
    rb_buf_printf(b, "  fingerprint routes xxh3:%016llx\n",
                  (unsigned long long)rb_route_table_fingerprint(t));
}
