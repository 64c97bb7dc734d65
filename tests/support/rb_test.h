/*
 * rb_test.h — helpers shared by the Criterion tests (conventions:
 * tests/README.md): building routers from literal route lines, the shipped
 * corpora, the one counting and failing allocator, the one "router beside
 * linear" pair that compares every answer with the oracle, and running a
 * shell command (the routebench binary) with what it printed.
 */
#ifndef RB_TEST_H
#define RB_TEST_H

#include "router_impl.h"
#include "table.h"

#include <stdbool.h>

/* ---- shipped corpora ------------------------------------------------------ */

/* Path of a shipped corpus file: RB_SOURCE_DIR/corpus/data/NAME.EXT. */
const char *rbt_data_path(const char *name, const char *ext, char *buf, size_t cap);

/* A table from routes-file text (asserting it parses). */
rb_route_table rbt_parse_routes(const char *text);

/* Run a shell command; its exit status, -1 if it did not exit. */
int rbt_run(const char *cmd);

/* Read shipped corpus NAME's routes and requests (asserting success);
 * the routes path is written to rpath for messages. */
void rbt_load_shipped(const char *name, rb_route_table *routes, rb_request_table *reqs, char *rpath,
                      size_t cap);

/* Does shipped corpus i (0 .. rb_shipped_count() - 1, corpus/shipped.h)
 * use only features in `features`?  Loops over the registry of shipped
 * corpora use it to pick the ones a router can take, so a new corpus is
 * tested without editing a list. */
bool rbt_shipped_fits(size_t i, unsigned features);

/* ---- building and looking up ------------------------------------------- */

/* Create router `name` (asserts success), add each "METHOD PATTERN" line
 * with route id = index (asserting success), build. */
rb_router *rbt_build(const char *name, const char *const *lines, size_t n);

/* Look up "METHOD PATH" (method by name). */
int rbt_lookup(const rb_router *r, const char *method, const char *path, rb_match *m);

/* Look path[0, len) up through a heap copy of exactly len bytes (no NUL, so
 * the ASan build sees any read past the end) into *m (first filled with
 * junk, so that a field left unset shows); asserts that every capture lies
 * inside the path.  Returns the outcome. */
int rbt_lookup_exact(const rb_router *r, int method, const char *path, size_t len, rb_match *m);

/* Assert that got (the router under test's answer) equals want (linear's)
 * field by field; the failure names label, the request and both answers. */
void rbt_expect_same_match(const char *label, int method, const char *path, size_t len,
                           const rb_match *got, const rb_match *want);

/* ---- a router beside linear -------------------------------------------- */

/* The router under test and linear (the oracle), fed the same routes; every
 * lookup is compared whole (outcome, route id, every span, the 405 mask). */
typedef struct rbt_pair {
    rb_router *r;      /* the router under test; its impl: rb__router_impl(p.r) */
    rb_router *linear; /* holds the routes r accepted */
    char label[80];    /* names the router (and e.g. the seed) in messages */
} rbt_pair;

/* Create both: r from ops and config (may be NULL), linear with defaults. */
void rbt_pair_init(rbt_pair *p, const rb_router_ops *ops, const rb_config *config,
                   const char *label);
/* Add to r; a route r refuses for a feature or a limit it lacks
 * (RB_EUNSUPPORTED, RB_ELIMIT) is left out of linear too, as verify does;
 * otherwise linear must answer the add with the same status (asserted).
 * Returns r's status. */
int rbt_pair_add(rbt_pair *p, int method, const char *pattern, size_t len, uint32_t id);
/* Build both (asserted) and check r's invariants (rb_router_check). */
void rbt_pair_build(rbt_pair *p);
/* rbt_lookup_exact in both, rbt_expect_same_match; returns r's answer. */
rb_match rbt_pair_lookup(const rbt_pair *p, int method, const char *path, size_t len);
void rbt_pair_free(rbt_pair *p);

/* A router that holds nothing (create allocates nothing, memory() is 0)
 * and answers 404 to everything: what a counting allocator sees of a
 * router built from it is the front end's own share. */
extern const rb_router_ops rbt_nothing_ops;

/* ---- the counting and failing allocator ---------------------------------- */

/* An allocator that fails its fail_at-th call (alloc or realloc, counted
 * from 1; 0: never), or every call from fail_from on, counts live blocks and bytes (memory() tests compare
 * live_bytes with what a router reports), and asserts that every free and
 * realloc names the size the block was allocated with. */
typedef struct rbt_failing_allocator {
    rb_allocator base; /* hand &a.base to an rb_config */
    size_t calls;      /* alloc + realloc calls so far */
    size_t fail_at;
    size_t fail_from;  /* every call from this one on fails (0: never) */
    size_t failed;     /* calls that were made to fail */
    size_t live_bytes; /* allocated and not yet freed */
    size_t live_blocks;
} rbt_failing_allocator;

void rbt_failing_allocator_init(rbt_failing_allocator *a, size_t fail_at);

/* ---- comparing answers --------------------------------------------------- */

/* Compare r's answer with lin's for (method, path) on every field
 * (rb_match_equal); the failure names ctx, the request and both answers. */
void rbt_expect_like(const rb_router *r, const rb_router *lin, int method, const char *path,
                     size_t len, const char *ctx);

/* Every request of q (one in 16 with every method too) through r and lin
 * (rbt_expect_like). */
void rbt_expect_like_on(const rb_router *r, const rb_router *lin, const rb_request_table *q,
                        const char *ctx);

/* Hash flooding as an attacker who knows the seed would do it, on the real
 * hash: fills out[0, n) with names prefix + "f<hex>" whose XXH3 under seed,
 * taken of the name from byte `from` on, has its low `bits` bits 0 (so
 * they share one home slot in any table of up to 2^bits slots).  Brute
 * force: about n * 2^bits hashes. */
void rbt_craft_collisions(uint64_t seed, unsigned bits, const char *prefix, size_t from, size_t n,
                          char (*out)[32]);
/* The same with the bits of mask 0 instead of the low ones (a table whose
 * home is not the hash's low bits: hashseg's full[] takes the high half of
 * its low 32 bits times the homes, so mask 0xffff0000 puts every name at
 * home 0 of any table of up to 2^16 homes). */
void rbt_craft_collisions_mask(uint64_t seed, uint64_t mask, const char *prefix, size_t from,
                               size_t n, char (*out)[32]);

/* ---- running the CLI from tests --------------------------------------------- */

/* Run RB_BINARY_DIR/routebench with args (a shell word list), stdout and
 * stderr into the file log; returns the exit status (asserts it exited). */
int rbt_routebench(const char *args, const char *log);
/* A fresh directory under /tmp (free the name; remove with rbt_remove_tree). */
char *rbt_tmpdir(void);
void rbt_remove_tree(const char *dir);
/* The whole of dir/file (asserting it reads), NUL-terminated; *len may be NULL. */
char *rbt_slurp(const char *dir, const char *file, size_t *len);

/* What a shell command printed, and how it ended. */
typedef struct rbt_shell {
    int status;      /* exit status; 128 + N when killed by signal N */
    char *out, *err; /* stdout and stderr, NUL-terminated (free with rbt_shell_free) */
} rbt_shell;

/* Run the shell command cmd in directory dir (stdin from /dev/null),
 * capturing stdout and stderr in dir/.out and dir/.err.  The shell
 * variable RB is the built routebench binary: "\"$RB\" verify ...". */
rbt_shell rbt_shell_run(const char *dir, const char *cmd);
void rbt_shell_free(rbt_shell *r);

/* text with its wrapped lines joined: every newline and the blanks after
 * it become one space, so a phrase can be found wherever the terminal
 * report wrapped it (malloc'd; NULL only when out of memory). */
char *rbt_unwrapped(const char *text);

#endif
