/*
 * profile_file.c — profiles of the files the commands name (profile_file.h).
 */
#include "profile_file.h"

#include "openapi.h"

int rb_profile_read(const char *path, rb_profile *out, bool *was_json, rb_error *err)
{
    int rc = rb_profile_load(path, out, was_json, err);
    if (rc == RB_EFORMAT) rb_openapi_hint(path, err);
    return rc;
}

static int compare(const rb_profile *pa, const char *a, const char *b, bool json, rb_buf *out,
                   rb_error *err)
{
    rb_profile pb;
    int rc = rb_profile_read(b, &pb, NULL, err);
    if (rc < 0) return rc;
    return json ? rb_profile_compare_json(pa, a, &pb, b, out, err)
                : rb_profile_compare_text(pa, a, &pb, b, out, err);
}

int rb_profile_compare_files(const char *a, const char *b, bool json, rb_buf *out, rb_error *err)
{
    rb_profile pa;
    int rc = rb_profile_read(a, &pa, NULL, err);
    return rc < 0 ? rc : compare(&pa, a, b, json, out, err);
}

int rb_profile_compare_table(const rb_route_table *t, const char *name, const char *b, bool json,
                             rb_buf *out, rb_error *err)
{
    rb_profile pa;
    int rc = rb_profile_fit(t, &pa, err);
    return rc < 0 ? rc : compare(&pa, name, b, json, out, err);
}
