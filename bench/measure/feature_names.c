/*
 * feature_names.c — the names of the RB_FEAT_* bits (see feature_names.h).
 */
#include "feature_names.h"

#include "router.h"

#include <stdio.h>
#include <string.h>

const rb_feature_name rb_feature_names[] = {
    {RB_FEAT_PARAMS, "params", "params"},
    {RB_FEAT_CATCHALL, "catch-all", "catch-alls"},
    {RB_FEAT_GLOB, "glob", "globs"},
    {RB_FEAT_TEMPLATE, "templates", "templates"},
};
const size_t rb_feature_count = sizeof rb_feature_names / sizeof rb_feature_names[0];

void rb_features_join(unsigned f, const char *sep, const char *none, int plural, char *buf,
                      size_t cap)
{
    size_t n = 0;
    if (cap) buf[0] = '\0';
    for (size_t i = 0; i < rb_feature_count; i++) {
        if (!(f & rb_feature_names[i].bit)) continue;
        const char *name = plural ? rb_feature_names[i].plural : rb_feature_names[i].name;
        int w = snprintf(buf + n, cap > n ? cap - n : 0, "%s%s", n ? sep : "", name);
        if (w > 0) n += (size_t)w;
    }
    if (!n) snprintf(buf, cap, "%s", none);
}

unsigned rb_features_parse(const char *list)
{
    unsigned f = 0;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        for (size_t i = 0; i < rb_feature_count; i++)
            if (strlen(rb_feature_names[i].name) == len &&
                memcmp(rb_feature_names[i].name, p, len) == 0)
                f |= rb_feature_names[i].bit;
        p += len + (p[len] == ',');
    }
    return f;
}
