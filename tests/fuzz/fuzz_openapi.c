/*
 * fuzz_openapi.c — libFuzzer target: the OpenAPI importer (YAML and JSON,
 * corpus/openapi.h) on arbitrary bytes.  It must never crash or leak; an
 * import it accepts has at least one route, each a pattern the shared
 * parser takes, and no (method, pattern) twice from a #fragment or ?query
 * key; an import it refuses leaves no routes and a message without control
 * bytes (binary input is refused before any of it is quoted).
 *
 * The byte budget: every byte of the document tree is allocated through
 * counting hooks (cJSON_InitHooks), and the most held at once must stay
 * within what the budgets allow — the tree of the text itself (at most
 * TREE_PER_BYTE bytes a document byte) plus what aliases and merge keys
 * may copy (RB_OPENAPI_ALIAS_BYTES).  An alias bomb that slipped past the
 * count would break it at once.
 *
 * Inputs starting with the byte 0x01 are expanded before import, to reach
 * what 4 KB cannot hold (many keys, many aliases): 0x01, a count R (two
 * bytes, big-endian, modulo 5,001), then HEAD '|' BODY '|' TAIL: the
 * document is HEAD, BODY R times with each '$' replaced by the copy's
 * number, then TAIL ("paths:\n|  /p$: {get: {}}\n|" gives R paths).
 */
#include "openapi.h"
#include "router_impl.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_openapi: check failed: %s\n", #cond);                            \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

#define TREE_PER_BYTE 160 /* a node (64 bytes) and its strings for each 2 bytes of text */
#define MAX_COPIES    5000
#define MAX_EXPANDED  ((size_t)2 << 20)

static size_t live, peak;

/* cJSON allocations with their size in front, counted. */
static void *counted_malloc(size_t n)
{
    size_t *p = malloc(n + 16);
    if (!p) return NULL;
    p[0] = n;
    live += n;
    if (live > peak) peak = live;
    return (char *)p + 16;
}

static void counted_free(void *q)
{
    if (!q) return;
    size_t *p = (size_t *)(void *)((char *)q - 16);
    live -= p[0];
    free(p);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    cJSON_Hooks hooks = {counted_malloc, counted_free};
    cJSON_InitHooks(&hooks);
    return 0;
}

/* The expanded document of an input starting with 0x01 (see above), or
 * NULL when the input is not one. */
static char *expand(const uint8_t *data, size_t size, size_t *len)
{
    if (size < 3 || data[0] != 0x01) return NULL;
    size_t copies = ((size_t)data[1] << 8 | data[2]) % (MAX_COPIES + 1);
    const char *s = (const char *)data + 3, *end = (const char *)data + size;
    const char *bar1 = memchr(s, '|', (size_t)(end - s));
    const char *bar2 = bar1 ? memchr(bar1 + 1, '|', (size_t)(end - bar1 - 1)) : NULL;
    if (!bar2) return NULL;
    size_t body = (size_t)(bar2 - bar1 - 1);
    char *doc = malloc(MAX_EXPANDED + 1);
    if (!doc) return NULL;
    size_t w = 0;
    memcpy(doc, s, (size_t)(bar1 - s));
    w = (size_t)(bar1 - s);
    for (size_t k = 0; k < copies && w + body * 8 + 16 < MAX_EXPANDED; k++) {
        for (size_t i = 0; i < body; i++) {
            char c = bar1[1 + i];
            if (c == '$')
                w += (size_t)snprintf(doc + w, MAX_EXPANDED - w, "%zu", k);
            else
                doc[w++] = c;
        }
    }
    size_t tail = (size_t)(end - bar2 - 1);
    if (w + tail > MAX_EXPANDED) tail = MAX_EXPANDED - w;
    memcpy(doc + w, bar2 + 1, tail);
    w += tail;
    doc[w] = '\0';
    *len = w;
    return doc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t len = size;
    char *expanded = expand(data, size, &len);
    const char *text = expanded ? expanded : (const char *)data;
    rb_route_table t;
    rb_openapi_report rep;
    rb_error err;
    live = peak = 0;
    int rc = rb_openapi_import("fuzz", text, len, &t, &rep, &err);
    /* the byte budget: the text's tree and the copies aliases may make */
    CHECK(peak <= (size_t)TREE_PER_BYTE * len + RB_OPENAPI_ALIAS_BYTES + 4096);
    CHECK(live == 0);
    free(expanded);
    if (rc < 0) {
        CHECK(t.count == 0);
        for (const char *p = err.message; *p; p++)
            CHECK((unsigned char)*p >= 0x20 && (unsigned char)*p != 0x7f);
        return 0;
    }
    CHECK(t.count > 0 && rep.routes == t.count);
    CHECK(rep.merged <= rep.variants * 16); /* 8 operations a key, both ways */
    for (size_t i = 0; i < t.count; i++) {
        rb_pattern pat;
        CHECK(rb_pattern_parse(rb_route_pattern(&t, i), t.routes[i].len, NULL, &pat, &err) ==
              RB_OK);
        rb_pattern_free(&pat);
        CHECK(memchr(rb_route_pattern(&t, i), '#', t.routes[i].len) == NULL);
    }
    rb_route_table_free(&t);
    return 0;
}
