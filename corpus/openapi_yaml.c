/*
 * openapi_yaml.c — a YAML document (libyaml's event parser) as the cJSON
 * tree the OpenAPI importer reads (openapi_yaml.h).
 *
 * Mappings become objects (keys must be scalars, a key given twice is an
 * error naming both lines), sequences arrays, scalars strings: the importer
 * only reads text (versions, titles, $ref) and structure, and a version
 * written `openapi: 3.0` must stay "3.0", not become a number.  An empty
 * or `~`/`null` plain scalar is null.  Anchors and aliases are followed
 * (an alias is a copy of its anchor's node); `<<` merge keys add the keys of
 * the mapping (or the mappings) they name that are not already there, and a
 * key given after the merge replaces the merged one.  Only the first
 * document of a stream is read; a second one (anything after the document
 * but comments and "..." markers) is an error, and so is a NUL in any
 * scalar (the tree's strings end at a NUL).
 *
 * Budgets (openapi.h): what aliases and merge keys copy is counted in
 * nodes and in bytes (a node's struct and its strings) before it is copied,
 * so a "billion laughs" of small nodes and one large scalar aliased
 * thousands of times both fail at once, naming the budget; the tree holds
 * at most RB_OPENAPI_MAX_NODES nodes.  Each mapping's keys are in a hash
 * set (keyset.h), so a mapping of N keys costs O(N), and so do anchors.
 *
 * Each member of a mapping records where its key starts in valuedouble
 * (the offset + 1; the builder makes no numbers, so the field is free) and,
 * in valueint, whether a merge key added it.
 */
#include "openapi_internal.h"

#include "base_internal.h"
#include "keyset.h"
#include "openapi.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_DEPTH   256
#define MAX_ANCHORS 4096
#define MERGED      1 /* valueint of a member a merge key added */

typedef struct anchor {
    char *name;
    cJSON *node; /* owned by the tree */
} anchor;

typedef struct frame {
    cJSON *node;
    char *key;         /* mapping: the key read, waiting for its value */
    size_t key_off;    /* where the key starts */
    bool merge_key;    /* the key is "<<" */
    cJSON *replace;    /* the merged member the key's value replaces, or NULL */
    rb_keyset keys;    /* mapping: its members by key */
    yaml_mark_t start; /* where the collection starts, for messages */
} frame;

typedef struct builder {
    const char *name, *data;
    rb_error *err;
    frame stack[MAX_DEPTH];
    size_t depth;
    anchor anchors[MAX_ANCHORS];
    size_t nanchors;
    rb_keyset anchor_names;   /* anchors by name (the last one wins) */
    size_t nodes;             /* in the tree, copies included */
    size_t copied_nodes;      /* copied by aliases and merge keys */
    unsigned long long bytes; /* ... and their bytes */
    cJSON *root;
    cJSON *spent; /* nodes read but not in the tree (keys, merged mappings): anchors may
                     still name them, so they live until the end */
} builder;

size_t rb__openapi_yaml_key_offset(const cJSON *m)
{
    return m->valuedouble >= 1 ? (size_t)m->valuedouble - 1 : SIZE_MAX;
}

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

/* ---- the budget of copies -------------------------------------------------------- */

typedef struct tally {
    size_t nodes;
    unsigned long long bytes;
} tally;

/* Count n's nodes and bytes into *t, stopping once over the budget. */
static void tally_tree(const cJSON *n, tally *t, const builder *b)
{
    for (; n; n = n->next) {
        t->nodes++;
        t->bytes += sizeof *n + (n->string ? strlen(n->string) + 1 : 0) +
                    (n->valuestring ? strlen(n->valuestring) + 1 : 0);
        if (b->copied_nodes + t->nodes > RB_OPENAPI_ALIAS_NODES ||
            b->bytes + t->bytes > RB_OPENAPI_ALIAS_BYTES)
            return;
        tally_tree(n->child, t, b);
    }
}

/* Charge a copy of n (one node and its children) to the budget. */
static int charge(builder *b, const cJSON *n, const yaml_mark_t *m)
{
    tally t = {1, sizeof *n + (n->string ? strlen(n->string) + 1 : 0) +
                      (n->valuestring ? strlen(n->valuestring) + 1 : 0)};
    tally_tree(n->child, &t, b);
    if (b->copied_nodes + t.nodes > RB_OPENAPI_ALIAS_NODES ||
        b->bytes + t.bytes > RB_OPENAPI_ALIAS_BYTES) {
        char what[240];
        snprintf(what, sizeof what,
                 "aliases expand the document too much: their copies would exceed the budget "
                 "of %u MiB and %u nodes for what aliases and merge keys copy",
                 (unsigned)(RB_OPENAPI_ALIAS_BYTES >> 20), (unsigned)RB_OPENAPI_ALIAS_NODES);
        return fail_at(b, m, what);
    }
    b->copied_nodes += t.nodes;
    b->bytes += t.bytes;
    b->nodes += t.nodes;
    return RB_OK;
}

/* ---- keys ------------------------------------------------------------------------- */

static bool same_member(const void *key, uintptr_t member)
{
    return strcmp(((const cJSON *)member)->string, key) == 0;
}

static cJSON *member_of(const frame *f, const char *key, uint64_t h)
{
    uintptr_t *slot = rb__keyset_find(&f->keys, h, same_member, key);
    return slot ? (cJSON *)*slot : NULL;
}

static bool same_anchor(const void *ctx, uintptr_t i)
{
    const void *const *c = ctx;
    const anchor *anchors = c[0];
    return strcmp(anchors[i].name, c[1]) == 0;
}

static int remember(builder *b, const yaml_char_t *name, cJSON *node, const yaml_mark_t *m)
{
    if (!name) return RB_OK;
    if (b->nanchors == MAX_ANCHORS) return fail_at(b, m, "too many YAML anchors");
    size_t n = strlen((const char *)name);
    char *copy = malloc(n + 1);
    if (!copy) return RB_ENOMEM;
    memcpy(copy, name, n + 1);
    uint64_t h = rb__keyset_hash(copy, n);
    const void *ctx[2] = {b->anchors, copy};
    uintptr_t *slot = rb__keyset_find(&b->anchor_names, h, same_anchor, ctx);
    if (slot) {
        *slot = b->nanchors;
    } else if (rb__keyset_add(&b->anchor_names, h, b->nanchors) < 0) {
        free(copy);
        return RB_ENOMEM;
    }
    b->anchors[b->nanchors++] = (anchor){copy, node};
    return RB_OK;
}

/* Add the keys of src (an object) that f's mapping lacks: a `<<` merge. */
static int merge(builder *b, frame *f, const cJSON *src, const yaml_mark_t *m)
{
    if (!cJSON_IsObject(src)) return fail_at(b, m, "a '<<' merge needs a mapping");
    for (const cJSON *c = src->child; c; c = c->next) {
        uint64_t h = rb__keyset_hash(c->string, strlen(c->string));
        if (member_of(f, c->string, h)) continue;
        int rc = charge(b, c, m);
        if (rc < 0) return rc;
        cJSON *copy = cJSON_Duplicate(c, true);
        if (!copy) return RB_ENOMEM;
        copy->valueint = MERGED;
        copy->valuedouble = c->valuedouble;
        cJSON_AddItemToObject(f->node, c->string, copy);
        if (rb__keyset_add(&f->keys, h, (uintptr_t)copy) < 0) return RB_ENOMEM;
    }
    return RB_OK;
}

/* Line (1-based) of byte off of the document. */
static size_t line_of(const builder *b, size_t off)
{
    size_t line = 1;
    for (const char *p = b->data; (p = memchr(p, '\n', (size_t)(b->data + off - p))); p++) line++;
    return line;
}

/* A mapping's key: kept in f until its value comes. */
static int take_key(builder *b, frame *f, cJSON *node, const yaml_mark_t *m)
{
    if (!cJSON_IsString(node)) {
        spend(b, node);
        return fail_at(b, m, "a mapping key must be a plain text scalar");
    }
    size_t n = strlen(node->valuestring);
    f->key = cJSON_malloc(n + 1); /* the member owns it: cJSON frees it */
    if (!f->key) {
        spend(b, node);
        return RB_ENOMEM;
    }
    memcpy(f->key, node->valuestring, n + 1);
    spend(b, node);
    f->key_off = m->index;
    f->merge_key = strcmp(f->key, "<<") == 0;
    f->replace = NULL;
    if (f->merge_key) return RB_OK;
    cJSON *before = member_of(f, f->key, rb__keyset_hash(f->key, n));
    if (!before) return RB_OK;
    if (before->valueint == MERGED) {
        f->replace = before;
        return RB_OK;
    }
    char what[240], shown[80];
    size_t first = rb__openapi_yaml_key_offset(before);
    snprintf(what, sizeof what, "the key %s is given twice in one mapping (first at line %zu)",
             rb__openapi_quote(f->key, n, 40, shown, sizeof shown),
             first == SIZE_MAX ? (size_t)0 : line_of(b, first));
    cJSON_free(f->key);
    f->key = NULL;
    return fail_at(b, m, what);
}

/* A mapping's value: a member under the key waiting in f. */
static int take_value(builder *b, frame *f, cJSON *node, const yaml_mark_t *m)
{
    int rc = RB_OK;
    if (f->merge_key) {
        if (cJSON_IsArray(node))
            for (const cJSON *c = node->child; c && rc == RB_OK; c = c->next)
                rc = merge(b, f, c, m);
        else
            rc = merge(b, f, node, m);
        spend(b, node);
        cJSON_free(f->key);
    } else {
        node->valuedouble = (double)f->key_off + 1;
        node->valueint = 0;
        cJSON_free(node->string); /* an alias's copy of a member keeps its key */
        node->string = f->key;    /* the member owns the key now */
        uint64_t h = rb__keyset_hash(f->key, strlen(f->key));
        if (f->replace) {
            *rb__keyset_find(&f->keys, h, same_member, f->key) = (uintptr_t)node;
            cJSON_ReplaceItemViaPointer(f->node, f->replace, node);
        } else {
            cJSON_AddItemToArray(f->node, node); /* the key set: an object member */
            rc = rb__keyset_add(&f->keys, h, (uintptr_t)node);
        }
    }
    f->key = NULL;
    f->replace = NULL;
    return rc;
}

/* Attach a finished node to the collection on top of the stack (or make
 * it the root).  Takes node; for a mapping's key (a scalar) it keeps the
 * text. */
static int attach(builder *b, cJSON *node, const yaml_mark_t *m)
{
    if (++b->nodes > RB_OPENAPI_MAX_NODES) {
        spend(b, node);
        char what[160];
        snprintf(what, sizeof what, "the document is too large: over %u nodes (the budget)",
                 (unsigned)RB_OPENAPI_MAX_NODES);
        return fail_at(b, m, what);
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
    return f->key ? take_value(b, f, node, m) : take_key(b, f, node, m);
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

static int alias(builder *b, const char *name, const yaml_mark_t *m)
{
    const void *ctx[2] = {b->anchors, name};
    uintptr_t *slot =
        rb__keyset_find(&b->anchor_names, rb__keyset_hash(name, strlen(name)), same_anchor, ctx);
    if (!slot) { /* an anchor name is printable, without spaces */
        char what[120];
        snprintf(what, sizeof what, "unknown alias *%.40s%s", name, strlen(name) > 40 ? "..." : "");
        return fail_at(b, m, what);
    }
    const cJSON *target = b->anchors[*slot].node;
    for (size_t d = 0; d < b->depth; d++)
        if (b->stack[d].node == target)
            return fail_at(b, m, "an alias refers to a node that contains it");
    int rc = charge(b, target, m);
    if (rc < 0) return rc;
    cJSON *n = cJSON_Duplicate(target, true);
    if (!n) return RB_ENOMEM;
    b->nodes--; /* charged above, counted again by attach */
    return attach(b, n, m);
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
        b->stack[b->depth++] = (frame){.node = n, .start = *m};
        return remember(b, name, n, m);
    }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT: {
        frame f = b->stack[--b->depth];
        cJSON_free(f.key);
        rb__keyset_free(&f.keys);
        return attach(b, f.node, &f.start);
    }
    case YAML_ALIAS_EVENT:
        return alias(b, (const char *)e->data.alias.anchor, m);
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
    b->data = data;
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
        cJSON_free(f->key);
        rb__keyset_free(&f->keys);
        cJSON_Delete(f->node);
    }
    for (size_t i = 0; i < b->nanchors; i++) free(b->anchors[i].name);
    rb__keyset_free(&b->anchor_names);
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
