/*
 * choose_tables.h — the tables `routebench choose` measures: the routes
 * from a routes file or an OpenAPI document, the requests from a requests
 * file or generated from the routes (corpus/reqgen.h), written into a
 * fresh temporary directory as NAME.routes / NAME.requests (NAME: the
 * source's file name up to its first dot, "table" when empty), the files
 * the scenario and the peers read.  Also the bundle's notes on where they
 * came from.  Nothing here prints: what was imported or generated comes
 * back in rb_choose_tables for the caller to tell.
 */
#ifndef RB_BENCH_CHOOSE_TABLES_H
#define RB_BENCH_CHOOSE_TABLES_H

#include "bundle.h"
#include "openapi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct rb_choose_input {
    const char *routes;    /* a routes file, or NULL with openapi */
    const char *openapi;   /* an OpenAPI document, or NULL */
    const char *base_path; /* --base-path of the import, or NULL */
    const char *requests;  /* a requests file, or NULL: generated */
    size_t count;          /* requests to generate */
    uint64_t seed;         /* of the generation */
} rb_choose_input;

typedef struct rb_choose_tables {
    char dir[512];              /* the temporary directory ("" before it exists) */
    char routes[600];           /* dir/NAME.routes */
    char requests[600];         /* dir/NAME.requests */
    bool imported;              /* openapi: the document was read (report below) */
    rb_openapi_report openapi;  /* when imported */
    bool generated;             /* the requests were generated */
    size_t generated_count;     /* how many, when generated */
    char note[RB_BUNDLE_TEXT];  /* the bundle's source note */
    char rnote[RB_BUNDLE_TEXT]; /* the bundle's requests note */
} rb_choose_tables;

/* The temporary directory under tmp (NULL or "": /tmp), or RB_EIO naming
 * tmp.  t is zeroed first. */
int rb_choose_tables_dir(rb_choose_tables *t, const char *tmp, rb_error *err);

/* Read, import or generate the tables into t->dir (whose file names are
 * set even on failure).  The reading's, import's or generation's error. */
int rb_choose_tables_make(const rb_choose_input *in, rb_choose_tables *t, rb_error *err);

/* t->note and t->rnote: in_bundle when the tables go into the bundle. */
void rb_choose_tables_notes(const rb_choose_input *in, bool in_bundle, rb_choose_tables *t);

/* Remove the two files and the directory (what exists of them). */
void rb_choose_tables_remove(const rb_choose_tables *t);

#endif
