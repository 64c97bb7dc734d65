/*
 * openapi_yaml.c — a YAML document (libyaml's event parser) as the cJSON
 * tree the OpenAPI importer reads (openapi_yaml.h).
 *
 * Mappings become objects (keys must be scalars, a key given twice is an
 * error naming both lines), sequences arrays, scalars strings: the importer
 * only reads text (versions, titles, $ref) and structure, and a version
 * written `openapi: 3.0` must stay "3.0", not become a number.  An empty
 * or `~`/`null` plain scalar is null.  Anchors and aliases are followed
 * (an alias is a copy of its anchor's node, within a budget of nodes so a
 * "billion laughs" document fails cleanly); `<<` merge keys add the keys of
 * the mapping (or the mappings) they name that are not already there.  Only
 * the first document of a stream is read; a second one (anything after the
 * document but comments and "..." markers) is an error, and so is a NUL in
 * any scalar (the tree's strings end at a NUL).
 */
#include "openapi_yaml.h"

#include "base_internal.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_DEPTH   256
#define MAX_ANCHORS 4096
#define MAX_NODES   2000000 /* nodes, aliases' copies included */

typedef struct anchor {
    char *name;
    cJSON *node; /* owned by the tree */
} anchor;

typedef struct frame {
    cJSON *node;
    char *key;         /* mapping: the key read, waiting for its value */
    size_t key_line;   /* where the key was */
    bool merge_key;    /* the key is "<<" */
    yaml_mark_t start; /* where the collection starts, for messages */
} frame;

typedef struct builder {
    const char *name;
    rb_error *err;
    frame stack[MAX_DEPTH];
    size_t depth;
    anchor anchors[MAX_ANCHORS];
    size_t nanchors;
    size_t nodes;
    cJSON *root;
    cJSON *spent; /* nodes read but not in the tree (keys, merged mappings): anchors may
                     still name them, so they live until the end */
} builder;

static void spend(builder *b, cJSON *node)
{
    cJSON_AddItemToArray(b->spent, node);
}

static int fail_at(builder *b, const yaml_mark_t *m, const char *what)
{
    rb__error(b->err, RB_EFORMAT, m->index, "%s:%zu:%zu: %s", b->name, (size_t)m->line + 1,
              (size_t)m->column + 1, what);
    if (b->err) b->err->line = (size_t)m->line + 1;
    return RB_EFORMAT;
}

static size_t count_nodes(const cJSON *n)
{
    size_t k = 1;
    for (const cJSON *c = n->child; c; c = c->next) k += count_nodes(c);
    return k;
}

static int remember(builder *b, const yaml_char_t *name, cJSON *node, const yaml_mark_t *m)
{
    if (!name) return RB_OK;
    if (b->nanchors == MAX_ANCHORS) return fail_at(b, m, "too many YAML anchors");
    char *copy = malloc(strlen((const char *)name) + 1);
    if (!copy) return RB_ENOMEM;
    strcpy(copy, (const char *)name);
    b->anchors[b->nanchors++] = (anchor){copy, node};
    return RB_OK;
}

/* Add the keys of src (an object) that dst lacks: a `<<` merge. */
static int merge(builder *b, cJSON *dst, const cJSON *src, const yaml_mark_t *m)
{
    if (!cJSON_IsObject(src)) return fail_at(b, m, "a '<<' merge needs a mapping");
    for (const cJSON *c = src->child; c; c = c->next) {
        if (cJSON_GetObjectItemCaseSensitive(dst, c->string)) continue;
        cJSON *copy = cJSON_Duplicate(c, true);
        if (!copy) return RB_ENOMEM;
        b->nodes += count_nodes(copy);
        cJSON_AddItemToObject(dst, c->string, copy);
    }
    return RB_OK;
}

/* Attach a finished node to the collection on top of the stack (or make
 * it the root).  Takes node; for a mapping's key (a scalar) it keeps the
 * text. */
static int attach(builder *b, cJSON *node, const yaml_mark_t *m)
{
    if (++b->nodes > MAX_NODES) {
        spend(b, node);
        return fail_at(b, m,
                       "the document is too large (too many nodes, or aliases expand too "
                       "much)");
    }
    if (b->depth == 0) {
        if (b->root) {
            spend(b, node);
            return fail_at(b, m, "more than one YAML document: give one OpenAPI document");
        }
        b->root = node;
        return RB_OK;
    }
    frame *f = &b->stack[b->depth - 1];
    if (cJSON_IsArray(f->node)) {
        cJSON_AddItemToArray(f->node, node);
        return RB_OK;
    }
    if (!f->key) {
        /* this node is a key */
        if (!cJSON_IsString(node)) {
            spend(b, node);
            return fail_at(b, m, "a mapping key must be a plain text scalar");
        }
        f->key = malloc(strlen(node->valuestring) + 1);
        if (!f->key) {
            spend(b, node);
            return RB_ENOMEM;
        }
        strcpy(f->key, node->valuestring);
        f->key_line = (size_t)m->line + 1;
        f->merge_key = strcmp(f->key, "<<") == 0;
        spend(b, node);
        if (!f->merge_key && cJSON_GetObjectItemCaseSensitive(f->node, f->key)) {
            char what[300];
            snprintf(what, sizeof what, "the key \"%.200s\" is given twice in one mapping", f->key);
            free(f->key);
            f->key = NULL;
            return fail_at(b, m, what);
        }
        return RB_OK;
    }
    int rc = RB_OK;
    if (f->merge_key) {
        if (cJSON_IsArray(node))
            for (const cJSON *c = node->child; c && rc == RB_OK; c = c->next)
                rc = merge(b, f->node, c, m);
        else
            rc = merge(b, f->node, node, m);
        spend(b, node);
    } else {
        cJSON_AddItemToObject(f->node, f->key, node);
    }
    free(f->key);
    f->key = NULL;
    return rc;
}

static cJSON *scalar(const yaml_event_t *e)
{
    const char *v = (const char *)e->data.scalar.value;
    size_t n = e->data.scalar.length;
    if (e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
        (n == 0 || strcmp(v, "~") == 0 || strcmp(v, "null") == 0 || strcmp(v, "Null") == 0 ||
         strcmp(v, "NULL") == 0))
        return cJSON_CreateNull();
    return cJSON_CreateString(v);
}

static int event(builder *b, const yaml_event_t *e)
{
    const yaml_mark_t *m = &e->start_mark;
    switch (e->type) {
    case YAML_SCALAR_EVENT: {
        /* a NUL ("\0", "\x00") would cut the string short in the tree */
        if (memchr(e->data.scalar.value, '\0', e->data.scalar.length))
            return fail_at(b, m,
                           "a NUL character in a string: it would cut the string short, and no "
                           "route can hold it");
        cJSON *n = scalar(e);
        if (!n) return RB_ENOMEM;
        int rc = remember(b, e->data.scalar.anchor, n, m);
        return rc < 0 ? (cJSON_Delete(n), rc) : attach(b, n, m);
    }
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        if (b->depth == MAX_DEPTH) return fail_at(b, m, "nested too deeply");
        bool seq = e->type == YAML_SEQUENCE_START_EVENT;
        cJSON *n = seq ? cJSON_CreateArray() : cJSON_CreateObject();
        if (!n) return RB_ENOMEM;
        const yaml_char_t *name =
            seq ? e->data.sequence_start.anchor : e->data.mapping_start.anchor;
        b->stack[b->depth++] = (frame){n, NULL, 0, false, *m};
        return remember(b, name, n, m);
    }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT: {
        frame f = b->stack[--b->depth];
        free(f.key);
        return attach(b, f.node, &f.start);
    }
    case YAML_ALIAS_EVENT: {
        const char *name = (const char *)e->data.alias.anchor;
        for (size_t i = b->nanchors; i-- > 0;) {
            if (strcmp(b->anchors[i].name, name) != 0) continue;
            for (size_t d = 0; d < b->depth; d++)
                if (b->stack[d].node == b->anchors[i].node)
                    return fail_at(b, m, "an alias refers to a node that contains it");
            size_t copies = count_nodes(b->anchors[i].node);
            if (b->nodes + copies > MAX_NODES)
                return fail_at(b, m, "aliases expand the document too much");
            cJSON *n = cJSON_Duplicate(b->anchors[i].node, true);
            if (!n) return RB_ENOMEM;
            b->nodes += copies - 1;
            return attach(b, n, m);
        }
        char what[300];
        snprintf(what, sizeof what, "unknown alias *%.200s", name);
        return fail_at(b, m, what);
    }
    default:
        return RB_OK;
    }
}

static const char *problem_text(const yaml_parser_t *p)
{
    return p->problem ? p->problem : "malformed YAML";
}

int rb__openapi_yaml_parse(const char *name, const char *data, size_t len, cJSON **out,
                           rb_error *err)
{
    *out = NULL;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory reading %s", name);
    yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
    builder *b = calloc(1, sizeof *b);
    if (!b) {
        yaml_parser_delete(&parser);
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory reading %s", name);
    }
    b->name = name;
    b->err = err;
    b->spent = cJSON_CreateArray();
    int rc = b->spent ? RB_OK : RB_ENOMEM;
    for (bool done = false; !done && rc == RB_OK;) {
        yaml_event_t e;
        if (!yaml_parser_parse(&parser, &e)) {
            char what[300];
            if (parser.error == YAML_MEMORY_ERROR) {
                rc = RB_ENOMEM;
                break;
            }
            snprintf(what, sizeof what, "malformed YAML: %s%s%s", problem_text(&parser),
                     parser.context ? " " : "", parser.context ? parser.context : "");
            rc = fail_at(b, &parser.problem_mark, what);
            break;
        }
        done = e.type == YAML_STREAM_END_EVENT;
        rc = event(b, &e);
        yaml_event_delete(&e);
    }
    if (rc == RB_ENOMEM) rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory reading %s", name);
    while (b->depth > 0) { /* an error inside collections: each one is not attached yet */
        frame *f = &b->stack[--b->depth];
        free(f->key);
        cJSON_Delete(f->node);
    }
    for (size_t i = 0; i < b->nanchors; i++) free(b->anchors[i].name);
    cJSON_Delete(b->spent);
    if (rc == RB_OK && !b->root)
        rc = rb__error(err, RB_EFORMAT, 0, "%s:1:1: an empty document (no YAML or JSON in it)",
                       name);
    if (rc == RB_OK)
        *out = b->root;
    else
        cJSON_Delete(b->root);
    free(b);
    yaml_parser_delete(&parser);
    return rc;
}
