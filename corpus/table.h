/*
 * table.h — route tables and request tables: the two file formats of
 * docs/corpora.md, in memory, with readers, writers and fingerprints.
 *
 * Routes file:   one route a line, "METHOD PATTERN"; '#' comment lines and
 *                blank lines are skipped; the route id is the 0-based index
 *                among route lines.
 * Requests file: one a line, "METHOD PATH EXPECTED"; EXPECTED is a route
 *                id (decimal, no sign, no leading zeros), -1 (not found)
 *                or -2 (method not allowed).  A comment line
 *                "# routes xxh3:<16 hex digits>" records the fingerprint
 *                of the route table the requests were made for (written
 *                by every routebench writer; older readers skip it as a
 *                comment).  Files without it, written before it existed,
 *                are still read: their pairing is then checked by route
 *                ids only.
 *
 * Patterns are printable (no whitespace or control bytes: the router front
 * end refuses them too) and request paths hold no whitespace, so every
 * table a writer writes reads back to the same fingerprint; the writers
 * check this before writing anything.
 *
 * Every malformed line is an error naming the file and line (err->line);
 * nothing is skipped silently.  Strings live in one owned byte buffer and
 * are addressed by offset, so tables are compact and safe to grow.
 */
#ifndef RB_CORPUS_TABLE_H
#define RB_CORPUS_TABLE_H

#include "buf.h"
#include "router.h"

#include <stdbool.h>

#define RB_EXPECT_NOT_FOUND   (-1)
#define RB_EXPECT_NOT_ALLOWED (-2)

typedef struct rb_route_entry {
    int method;        /* rb_method or RB_ANY */
    uint32_t off, len; /* pattern bytes in table->bytes */
    size_t line;       /* 1-based source line (0 for generated) */
} rb_route_entry;

typedef struct rb_route_table {
    rb_route_entry *routes;
    size_t count, cap;
    char *bytes;
    size_t nbytes, bytes_cap;
} rb_route_table;

typedef struct rb_request {
    int method;        /* a concrete rb_method */
    uint32_t off, len; /* path bytes in table->bytes */
    int32_t expected;  /* route id, RB_EXPECT_NOT_FOUND or RB_EXPECT_NOT_ALLOWED */
    size_t line;
} rb_request;

typedef struct rb_request_table {
    rb_request *reqs;
    size_t count, cap;
    char *bytes;
    size_t nbytes, bytes_cap;
    uint64_t routes_fp;    /* the route table's fingerprint these requests are for ... */
    bool has_routes_fp;    /* ... when known (generated, or read from the file) */
    size_t routes_fp_line; /* the line that recorded it, 0 when generated */
} rb_request_table;

/* The start of the line recording the routes' fingerprint. */
#define RB_ROUTES_FP_PREFIX "# routes xxh3:"

static inline const char *rb_route_pattern(const rb_route_table *t, size_t i)
{
    return t->bytes + t->routes[i].off;
}

static inline const char *rb_request_path(const rb_request_table *t, size_t i)
{
    return t->bytes + t->reqs[i].off;
}

/* Append one route/request (bytes copied).  RB_ENOMEM on failure, table
 * unchanged. */
int rb_route_table_append(rb_route_table *t, int method, const char *pattern, size_t len,
                          size_t line);
int rb_request_table_append(rb_request_table *t, int method, const char *path, size_t len,
                            int32_t expected, size_t line);
void rb_route_table_free(rb_route_table *t);
void rb_request_table_free(rb_request_table *t);

/* Parse a routes/requests file held in memory; name is used in messages.
 * Patterns are checked by the shared parser: a malformed one is an error
 * naming the line and the byte offset in the pattern. */
int rb_route_table_parse(const char *name, const char *data, size_t len, rb_route_table *out,
                         rb_error *err);
int rb_request_table_parse(const char *name, const char *data, size_t len, rb_request_table *out,
                           rb_error *err);
int rb_route_table_read(const char *path, rb_route_table *out, rb_error *err);
int rb_request_table_read(const char *path, rb_request_table *out, rb_error *err);

/* Can every route/request be written so that it reads back the same (a
 * named method, a pattern the parser takes, a path without whitespace)?
 * RB_EFORMAT or RB_EPATTERN naming the route/request (err->line: its
 * source line, or its index + 1) and the byte offset. */
int rb_route_table_check_text(const rb_route_table *t, rb_error *err);
int rb_request_table_check_text(const rb_request_table *t, rb_error *err);

/* Are these requests for these routes?  An input error (RB_EFORMAT) when
 * the requests record another route table's fingerprint (the message names
 * both fingerprints), or when an EXPECTED route id is not a route of the
 * table (the message names the requests file and line: an id beyond the
 * table is a broken pair, not a router's disagreement).  Requests that
 * record no fingerprint are checked for their ids only. */
int rb_request_table_check_routes(const rb_request_table *q, const char *requests_name,
                                  const rb_route_table *r, const char *routes_name, rb_error *err);

/* Write in the file format, atomically (temp file + rename), after
 * rb_*_table_check_text.  header (may be NULL) is written first as '#'
 * comment lines (routes only); a request table with a known routes
 * fingerprint starts with its "# routes xxh3:" line. */
int rb_route_table_write(const char *path, const rb_route_table *t, const char *header,
                         rb_error *err);
int rb_request_table_write(const char *path, const rb_request_table *t, rb_error *err);
/* The same text appended to b (check b->failed). */
void rb_route_table_text(const rb_route_table *t, const char *header, rb_buf *b);
void rb_request_table_text(const rb_request_table *t, rb_buf *b);

/* XXH3-64 of the canonical text ("METHOD PATTERN\n" per route,
 * "METHOD PATH EXPECTED\n" per request), independent of comments,
 * blank lines and spacing in the source file. */
uint64_t rb_route_table_fingerprint(const rb_route_table *t);
uint64_t rb_request_table_fingerprint(const rb_request_table *t);

/* Append "/" and seg[0, n) to path[0, *len) when the result stays below
 * cap bytes (room for a NUL); false, path unchanged, when it does not.
 * For the generators, which build patterns a segment at a time. */
bool rb__path_push(char *path, size_t cap, size_t *len, const char *seg, size_t n);

/* Union of RB_FEAT_* used by the table's patterns. */
unsigned rb_route_table_features(const rb_route_table *t);

/* Add every route of t to r (route id = index).  When refused is NULL the
 * first failure is returned (err names the line).  Otherwise routes the
 * router refuses as RB_EUNSUPPORTED are counted in *refused, the first
 * refusal is copied to *first_refusal (may be NULL), and only other
 * failures are returned. */
int rb_route_table_add_to(const rb_route_table *t, const char *name, rb_router *r, size_t *refused,
                          rb_error *first_refusal, rb_error *err);

/* The table as a route set (route id = index), parsed and checked once: a
 * malformed or duplicate route is an error naming its line.  config (may be
 * NULL) as for rb_route_set_create. */
int rb_route_table_set(const rb_route_table *t, const char *name, const rb_config *config,
                       rb_route_set **out, rb_error *err);

/* Create router `ops`, load the set (rb_router_add_set) and build it. */
int rb_route_set_build_router(const rb_route_set *s, const rb_router_ops *ops,
                              const rb_config *config, rb_router **out, rb_error *err);

/* Create router `ops`, add the table (strict) and build it. */
int rb_route_table_build_router(const rb_route_table *t, const char *name, const rb_router_ops *ops,
                                const rb_config *config, rb_router **out, rb_error *err);

#endif
