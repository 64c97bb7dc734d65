/*
 * profile_json.c — a profile as JSON, and back (schema in profile.h).
 *
 * Reading is strict: every key must be known, every count a non-negative
 * integer (at most 2^53, exact in a JSON number), every array no longer
 * than its maximum, and the counts must agree (rb_profile_validate), so a
 * profile that reads is one generation can use.  Errors name the file and
 * the key ("levels[2].kinds.param.nodes").
 */
#include "profile_internal.h"

#include "file.h"
#include "base_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_INT (UINT64_C(1) << 53)

static const char *const psyn_names[RB_PSYN_COUNT] = {"colon", "brace"};
static const char *const tform_names[RB_TFORM_COUNT] = {"ext", "affix", "multi"};

/* ---- writing ------------------------------------------------------------------- */

static void add_u64(cJSON *o, const char *key, uint64_t v)
{
    cJSON_AddNumberToObject(o, key, (double)v);
}

/* counts[first..last] as an array, trailing zeros left out */
static void add_array(cJSON *o, const char *key, const uint64_t *counts, int first, int last)
{
    int end = last;
    while (end >= first && counts[end] == 0) end--;
    cJSON *a = cJSON_AddArrayToObject(o, key);
    for (int i = first; a && i <= end; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber((double)counts[i]));
}

static bool level_empty(const rb_profile_level *lv)
{
    static const rb_profile_level zero;
    return memcmp(lv, &zero, sizeof zero) == 0;
}

static void add_level(cJSON *levels, const rb_profile_level *lv, int d)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddItemToArray(levels, o)) {
        cJSON_Delete(o);
        return;
    }
    add_u64(o, "depth", (uint64_t)d);
    cJSON *kinds = cJSON_AddObjectToObject(o, "kinds");
    for (int k = 0; kinds && k < RB_PK_COUNT; k++) {
        const rb_profile_kind_counts *c = &lv->kind[k];
        if (c->nodes == 0 && c->interior == 0 && c->terminal == 0 && c->both == 0) continue;
        cJSON *kc = cJSON_AddObjectToObject(kinds, rb_profile_kind_name(k));
        if (!kc) continue;
        add_u64(kc, "nodes", c->nodes);
        add_u64(kc, "interior", c->interior);
        add_u64(kc, "terminal", c->terminal);
        add_u64(kc, "both", c->both);
    }
    cJSON *fan = cJSON_AddObjectToObject(o, "fanout");
    for (int b = 0; fan && b < RB_PROFILE_FANOUT_BUCKETS; b++)
        if (lv->fanout[b]) add_u64(fan, rb_profile_fanout_label(b), lv->fanout[b]);
    add_u64(o, "param_parents", lv->param_parents);
    add_u64(o, "param_with_static", lv->param_with_static);
    add_u64(o, "versions", lv->versions);
    add_u64(o, "extensions", lv->extensions);
    add_u64(o, "empties", lv->empties);
}

int rb_profile_json_write(const rb_profile *p, rb_buf *out, rb_error *err)
{
    cJSON *o = cJSON_CreateObject();
    char fp[32];
    snprintf(fp, sizeof fp, "xxh3:%016llx", (unsigned long long)p->fingerprint);
    cJSON_AddStringToObject(o, "schema", RB_PROFILE_SCHEMA);
    add_u64(o, "schema_version", RB_PROFILE_SCHEMA_VERSION);
    add_u64(o, "routes", p->routes);
    add_u64(o, "paths", p->paths);
    add_u64(o, "max_depth", p->max_depth);
    cJSON_AddStringToObject(o, "fingerprint", fp);
    add_array(o, "depth", p->depth, 1, RB_PROFILE_DEPTHS);
    cJSON *m = cJSON_AddObjectToObject(o, "methods");
    for (int i = 0; m && i < RB_PROFILE_METHODS; i++)
        if (p->methods[i]) add_u64(m, rb_method_name(i), p->methods[i]);
    add_array(o, "methods_per_path", p->methods_per_path, 1, RB_PROFILE_METHODS);
    add_array(o, "word_length", p->word_length, 1, RB_PROFILE_WORD_LENGTHS);
    add_u64(o, "trailing_slash", p->trailing_slash);
    add_u64(o, "versioned", p->versioned);
    add_u64(o, "extension", p->extension);
    cJSON *en = cJSON_AddObjectToObject(o, "extension_names");
    for (int i = 0; en && i < RB_PROFILE_EXT_NAMES; i++)
        if (p->ext_names[i]) add_u64(en, rb_profile_ext_name(i), p->ext_names[i]);
    cJSON *ps = cJSON_AddObjectToObject(o, "param_syntax");
    for (int i = 0; ps && i < RB_PSYN_COUNT; i++)
        if (p->param_syntax[i]) add_u64(ps, psyn_names[i], p->param_syntax[i]);
    cJSON *tf = cJSON_AddObjectToObject(o, "template_forms");
    for (int i = 0; tf && i < RB_TFORM_COUNT; i++)
        if (p->template_forms[i]) add_u64(tf, tform_names[i], p->template_forms[i]);
    if (p->prefix[0]) {
        cJSON *sp = cJSON_AddObjectToObject(o, "shared_prefix");
        if (sp) cJSON_AddStringToObject(sp, "path", p->prefix);
        if (sp) add_u64(sp, "routes", p->prefix_routes);
    }
    add_u64(o, "params", p->params);
    add_u64(o, "adjacent_params", p->adjacent_params);
    int last = RB_PROFILE_DEPTHS;
    while (last > 0 && level_empty(&p->level[last])) last--;
    cJSON *levels = cJSON_AddArrayToObject(o, "levels");
    for (int d = 0; levels && d <= last; d++) add_level(levels, &p->level[d], d);
    return rb__json_out(o, out, "writing a profile", err);
}

/* ---- reading ------------------------------------------------------------------- */

typedef struct reader {
    const char *name;
    rb_error *err;
} reader;

static int fail(reader *r, const char *fmt, ...) RB_PRINTF(2, 3);

static int fail(reader *r, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return rb__error(r->err, RB_EFORMAT, RB_NO_OFFSET, "%s: %s", r->name, msg);
}

/* Every key of o is one of keys (NULL-terminated). */
static int known_keys(reader *r, const cJSON *o, const char *where, const char *const *keys)
{
    for (const cJSON *c = o->child; c; c = c->next) {
        bool ok = false;
        for (size_t i = 0; keys[i] && !ok; i++) ok = strcmp(c->string, keys[i]) == 0;
        if (!ok) return fail(r, "%s%s\"%s\": unknown key", where, *where ? "." : "", c->string);
    }
    return RB_OK;
}

static int as_count(reader *r, const cJSON *v, const char *where, uint64_t *out)
{
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > (double)JSON_MAX_INT ||
        v->valuedouble != (double)(uint64_t)v->valuedouble)
        return fail(r, "%s: must be a non-negative integer", where);
    *out = (uint64_t)v->valuedouble;
    return RB_OK;
}

/* o[key] as a count; absent is 0 unless required. */
static int get_count(reader *r, const cJSON *o, const char *key, const char *where, bool required,
                     uint64_t *out)
{
    char path[128];
    snprintf(path, sizeof path, "%s%s%s", where, *where ? "." : "", key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = 0;
    if (!v) return required ? fail(r, "%s: missing", path) : RB_OK;
    return as_count(r, v, path, out);
}

/* o[key] as counts[first ..], at most last - first + 1 of them */
static int get_array(reader *r, const cJSON *o, const char *key, uint64_t *counts, int first,
                     int last)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!a) return fail(r, "%s: missing", key);
    if (!cJSON_IsArray(a)) return fail(r, "%s: must be an array", key);
    int n = cJSON_GetArraySize(a);
    if (n > last - first + 1)
        return fail(r, "%s: %d entries, at most %d", key, n, last - first + 1);
    int i = first;
    for (const cJSON *v = a->child; v; v = v->next, i++) {
        char path[64];
        snprintf(path, sizeof path, "%s[%d]", key, i - first);
        int rc = as_count(r, v, path, &counts[i]);
        if (rc < 0) return rc;
    }
    return RB_OK;
}

static int read_kinds(reader *r, const cJSON *kinds, const char *where, rb_profile_level *lv)
{
    if (!cJSON_IsObject(kinds)) return fail(r, "%s.kinds: must be an object", where);
    for (const cJSON *c = kinds->child; c; c = c->next) {
        int k = 0;
        while (k < RB_PK_COUNT && strcmp(rb_profile_kind_name(k), c->string) != 0) k++;
        char path[96];
        snprintf(path, sizeof path, "%s.kinds.%s", where, c->string);
        if (k == RB_PK_COUNT) return fail(r, "%s: unknown kind", path);
        if (!cJSON_IsObject(c)) return fail(r, "%s: must be an object", path);
        static const char *const keys[] = {"nodes", "interior", "terminal", "both", NULL};
        int rc = known_keys(r, c, path, keys);
        rb_profile_kind_counts *kc = &lv->kind[k];
        if (rc == RB_OK) rc = get_count(r, c, "nodes", path, true, &kc->nodes);
        if (rc == RB_OK) rc = get_count(r, c, "interior", path, true, &kc->interior);
        if (rc == RB_OK) rc = get_count(r, c, "terminal", path, true, &kc->terminal);
        if (rc == RB_OK) rc = get_count(r, c, "both", path, true, &kc->both);
        if (rc < 0) return rc;
    }
    return RB_OK;
}

static int read_level(reader *r, const cJSON *o, int index, rb_profile *p)
{
    char where[32];
    snprintf(where, sizeof where, "levels[%d]", index);
    if (!cJSON_IsObject(o)) return fail(r, "%s: must be an object", where);
    static const char *const keys[] = {
        "depth",      "kinds",   "fanout", "param_parents", "param_with_static", "versions",
        "extensions", "empties", NULL};
    int rc = known_keys(r, o, where, keys);
    uint64_t d;
    if (rc == RB_OK) rc = get_count(r, o, "depth", where, true, &d);
    if (rc < 0) return rc;
    if (d != (uint64_t)index)
        return fail(r, "%s.depth: %llu, levels are listed from depth 0 in order", where,
                    (unsigned long long)d);
    rb_profile_level *lv = &p->level[d];
    const cJSON *kinds = cJSON_GetObjectItemCaseSensitive(o, "kinds");
    if (!kinds) return fail(r, "%s.kinds: missing", where);
    rc = read_kinds(r, kinds, where, lv);
    if (rc < 0) return rc;
    const cJSON *fan = cJSON_GetObjectItemCaseSensitive(o, "fanout");
    if (!cJSON_IsObject(fan)) return fail(r, "%s.fanout: missing or not an object", where);
    for (const cJSON *c = fan->child; c; c = c->next) {
        int b = 0;
        while (b < RB_PROFILE_FANOUT_BUCKETS && strcmp(rb_profile_fanout_label(b), c->string) != 0)
            b++;
        char path[64];
        snprintf(path, sizeof path, "%s.fanout.\"%s\"", where, c->string);
        if (b == RB_PROFILE_FANOUT_BUCKETS) return fail(r, "%s: unknown bucket", path);
        rc = as_count(r, c, path, &lv->fanout[b]);
        if (rc < 0) return rc;
    }
    rc = get_count(r, o, "param_parents", where, true, &lv->param_parents);
    if (rc == RB_OK) rc = get_count(r, o, "param_with_static", where, true, &lv->param_with_static);
    if (rc == RB_OK) rc = get_count(r, o, "versions", where, true, &lv->versions);
    if (rc == RB_OK) rc = get_count(r, o, "extensions", where, true, &lv->extensions);
    if (rc == RB_OK) rc = get_count(r, o, "empties", where, true, &lv->empties);
    return rc;
}

/* o[key], if present: an object of counts named names[0, n). */
static int read_named(reader *r, const cJSON *o, const char *key, const char *const *names,
                      uint64_t *counts, int n)
{
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!obj) return RB_OK;
    if (!cJSON_IsObject(obj)) return fail(r, "%s: must be an object", key);
    for (const cJSON *c = obj->child; c; c = c->next) {
        int i = 0;
        while (i < n && strcmp(names[i], c->string) != 0) i++;
        char path[64];
        snprintf(path, sizeof path, "%s.\"%s\"", key, c->string);
        if (i == n) return fail(r, "%s: unknown name", path);
        int rc = as_count(r, c, path, &counts[i]);
        if (rc < 0) return rc;
    }
    return RB_OK;
}

/* "shared_prefix": {"path": "/2.0", "routes": n}, optional */
static int read_prefix(reader *r, const cJSON *o, rb_profile *p)
{
    static const char *const keys[] = {"path", "routes", NULL};
    const cJSON *sp = cJSON_GetObjectItemCaseSensitive(o, "shared_prefix");
    if (!sp) return RB_OK;
    if (!cJSON_IsObject(sp)) return fail(r, "shared_prefix: not an object");
    int rc = known_keys(r, sp, "shared_prefix", keys);
    if (rc == RB_OK) rc = get_count(r, sp, "routes", "shared_prefix", true, &p->prefix_routes);
    if (rc < 0) return rc;
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(sp, "path");
    if (!cJSON_IsString(path) || path->valuestring[0] != '/' ||
        strlen(path->valuestring) >= sizeof p->prefix)
        return fail(r, "shared_prefix.path: a string starting with '/', shorter than %zu bytes",
                    sizeof p->prefix);
    snprintf(p->prefix, sizeof p->prefix, "%s", path->valuestring);
    return RB_OK;
}

static int read_profile(reader *r, const cJSON *o, rb_profile *p)
{
    const char *ext_name_list[RB_PROFILE_EXT_NAMES];
    for (int i = 0; i < RB_PROFILE_EXT_NAMES; i++) ext_name_list[i] = rb_profile_ext_name(i);
    if (!cJSON_IsObject(o)) return fail(r, "not a JSON object");
    static const char *const keys[] = {"schema",       "schema_version",  "routes",
                                       "paths",        "max_depth",       "fingerprint",
                                       "depth",        "methods",         "methods_per_path",
                                       "word_length",  "trailing_slash",  "versioned",
                                       "extension",    "levels",          "extension_names",
                                       "param_syntax", "template_forms",  "shared_prefix",
                                       "params",       "adjacent_params", NULL};
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(o, "schema");
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, RB_PROFILE_SCHEMA) != 0)
        return fail(r, "schema: must be \"%s\"", RB_PROFILE_SCHEMA);
    uint64_t version, max_depth;
    int rc = get_count(r, o, "schema_version", "", true, &version);
    if (rc < 0) return rc;
    if (version != RB_PROFILE_SCHEMA_VERSION)
        return fail(r, "schema_version: %llu, this routebench reads version %d",
                    (unsigned long long)version, RB_PROFILE_SCHEMA_VERSION);
    rc = known_keys(r, o, "", keys);
    if (rc == RB_OK) rc = get_count(r, o, "routes", "", true, &p->routes);
    if (rc == RB_OK) rc = get_count(r, o, "paths", "", true, &p->paths);
    if (rc == RB_OK) rc = get_count(r, o, "max_depth", "", true, &max_depth);
    if (rc < 0) return rc;
    if (max_depth > RB_PROFILE_DEPTHS) return fail(r, "max_depth: at most %d", RB_PROFILE_DEPTHS);
    p->max_depth = (uint32_t)max_depth;
    const cJSON *fp = cJSON_GetObjectItemCaseSensitive(o, "fingerprint");
    if (fp) {
        unsigned long long x;
        char tail;
        if (!cJSON_IsString(fp) || sscanf(fp->valuestring, "xxh3:%16llx%c", &x, &tail) != 1 ||
            strlen(fp->valuestring) != 21)
            return fail(r, "fingerprint: must be \"xxh3:\" and 16 hex digits");
        p->fingerprint = x;
    }
    rc = get_array(r, o, "depth", p->depth, 1, RB_PROFILE_DEPTHS);
    if (rc == RB_OK)
        rc = get_array(r, o, "methods_per_path", p->methods_per_path, 1, RB_PROFILE_METHODS);
    if (rc == RB_OK)
        rc = get_array(r, o, "word_length", p->word_length, 1, RB_PROFILE_WORD_LENGTHS);
    if (rc == RB_OK) rc = get_count(r, o, "trailing_slash", "", true, &p->trailing_slash);
    if (rc == RB_OK) rc = get_count(r, o, "versioned", "", true, &p->versioned);
    if (rc == RB_OK) rc = get_count(r, o, "extension", "", true, &p->extension);
    if (rc < 0) return rc;
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "methods");
    if (!cJSON_IsObject(m)) return fail(r, "methods: missing or not an object");
    for (const cJSON *c = m->child; c; c = c->next) {
        int method = rb_method_parse(c->string, strlen(c->string));
        char path[48];
        snprintf(path, sizeof path, "methods.%s", c->string);
        if (method < 0) return fail(r, "%s: unknown method", path);
        rc = as_count(r, c, path, &p->methods[method]);
        if (rc < 0) return rc;
    }
    rc = read_named(r, o, "extension_names", ext_name_list, p->ext_names, RB_PROFILE_EXT_NAMES);
    if (rc == RB_OK)
        rc = read_named(r, o, "param_syntax", psyn_names, p->param_syntax, RB_PSYN_COUNT);
    if (rc == RB_OK)
        rc = read_named(r, o, "template_forms", tform_names, p->template_forms, RB_TFORM_COUNT);
    if (rc == RB_OK) rc = get_count(r, o, "params", "", false, &p->params);
    if (rc == RB_OK) rc = get_count(r, o, "adjacent_params", "", false, &p->adjacent_params);
    if (rc == RB_OK) rc = read_prefix(r, o, p);
    if (rc < 0) return rc;
    const cJSON *levels = cJSON_GetObjectItemCaseSensitive(o, "levels");
    if (!cJSON_IsArray(levels)) return fail(r, "levels: missing or not an array");
    if (cJSON_GetArraySize(levels) > RB_PROFILE_DEPTHS + 1)
        return fail(r, "levels: more than %d", RB_PROFILE_DEPTHS + 1);
    int i = 0;
    for (const cJSON *lv = levels->child; lv; lv = lv->next, i++) {
        rc = read_level(r, lv, i, p);
        if (rc < 0) return rc;
    }
    return RB_OK;
}

int rb_profile_json_parse(const char *name, const char *text, size_t len, rb_profile *out,
                          rb_error *err)
{
    memset(out, 0, sizeof *out);
    reader r = {name, err};
    const char *end = text;
    cJSON *o = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!o) return fail(&r, "not valid JSON (near byte %zu)", (size_t)(end - text));
    int rc = read_profile(&r, o, out);
    cJSON_Delete(o);
    rb_error verr;
    if (rc == RB_OK && rb_profile_validate(out, &verr) < 0) rc = fail(&r, "%s", verr.message);
    if (rc < 0) memset(out, 0, sizeof *out);
    return rc;
}

int rb_profile_load(const char *path, rb_profile *out, bool *was_json, rb_error *err)
{
    char *data;
    size_t len;
    memset(out, 0, sizeof *out);
    int rc = rb_file_read(path, &data, &len, err);
    if (rc < 0) return rc;
    size_t i = 0;
    while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'))
        i++;
    bool json = i < len && data[i] == '{';
    if (was_json) *was_json = json;
    if (json) {
        rc = rb_profile_json_parse(path, data, len, out, err);
    } else {
        rb_route_table t;
        rc = rb_route_table_parse(path, data, len, &t, err);
        if (rc == RB_OK) {
            rb_error ferr;
            rc = rb_profile_fit(&t, out, &ferr);
            if (rc < 0) rb__error(err, rc, RB_NO_OFFSET, "%s: %s", path, ferr.message);
            rb_route_table_free(&t);
        }
    }
    free(data);
    return rc;
}
