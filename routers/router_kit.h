/*
 * router_kit.h — what routebench's own kit (corpus/, bench/, examples/http)
 * may use of the router layer's inside, never installed: the pattern
 * parser, template and glob segment matching (a corpus checks its routes
 * with the routers' own rules), the ops table check of plugins, the handle's
 * ops and implementation (the harness calls lookup directly) and linear,
 * the reference router.  The rest of the inside is router_impl.h, for
 * routers/ and the tests only.
 */
#ifndef RB_ROUTER_KIT_H
#define RB_ROUTER_KIT_H

#include "base_internal.h"
#include "router_plugin.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the pattern parser (pattern.c) -------------------------------------- */

/* Parse pattern[0..len).  On success fills *out (free with rb_pattern_free).
 * On failure returns RB_EPATTERN (err->offset = the offending byte) or
 * RB_ENOMEM, and *out needs no freeing.  allocator may be NULL. */
int rb_pattern_parse(const char *pattern, size_t len, const rb_allocator *allocator,
                     rb_pattern *out, rb_error *err);
void rb_pattern_free(rb_pattern *p);
/* Bytes allocated for a parsed pattern (for memory() accounting). */
size_t rb_pattern_bytes(const rb_pattern *p);

/* The RB_FEAT_* a segment of kind `kind` needs (0 for static). */
unsigned rb__segment_feature(unsigned kind);

/* ---- template segment matching (tmplseg.c, every router with templates) -- */

/* A template text is a template segment's text as the parser validated it
 * (`img-{id}.png`) or its shape, names erased (`img-{}.png`): literal
 * pieces and 1+ params, two params apart by 1+ literal bytes, no '/'.
 *
 * Does template t[0, t_len) match the whole segment seg[0, seg_len)?  On
 * success caps[0, k) get the spans of its k params, leftmost-shortest
 * (each param as few bytes as it can, left to right), as offsets base +
 * position in seg (base: the segment's offset in the path).  On failure
 * caps may have been written.  Greedy and one pass: the first piece must
 * start the segment, the last end it, and each middle piece is the first
 * occurrence after the previous one (plus the param's 1 byte); cost
 * O(seg_len * longest middle piece), O(seg_len + t_len) with at most one
 * middle piece of 1 byte.  No allocation.  steps (may be NULL) is
 * incremented once per byte position tried or compared. */
bool rb__template_match(const char *t, size_t t_len, const char *seg, size_t seg_len, uint32_t base,
                        rb_span *caps, uint64_t *steps);
/* Number of params of template t. */
uint32_t rb__template_params(const char *t, size_t t_len);
/* Bytes of template t before its first param (its first literal piece). */
size_t rb__template_prefix(const char *t, size_t t_len);
/* Write template t with its names erased (`img-{}.png`) to out (room for
 * t_len bytes); returns the bytes written. */
size_t rb__template_shape(const char *t, size_t t_len, char *out);
/* Bytes of template t's shape (what rb__template_shape writes). */
size_t rb__template_shape_len(const char *t, size_t t_len);
/* Do templates a and b have one shape (equal with names erased)? */
bool rb__template_same_shape(const char *a, size_t a_len, const char *b, size_t b_len);
/* A hash of template t's shape (FNV-1a from seed): equal shapes, equal
 * hashes. */
uint64_t rb__template_shape_hash(const char *t, size_t t_len, uint64_t seed);

/* ---- glob segment matching (linear and glob; corpus checks) --------------- */

/* Does glob (a glob segment's text, already validated by the parser) match
 * the whole of seg?  O(len(glob) * len(seg)) worst case, no allocation.
 * steps (may be NULL) is incremented once per inner-loop step. */
bool rb_glob_segment_match(const char *glob, size_t glob_len, const char *seg, size_t seg_len,
                           uint64_t *steps);

/* ---- ops tables and the handle ---------------------------------------------- */

/* Can this host use ops?  RB_OK; RB_EINVAL for NULL; RB_EABI (naming the
 * router and the versions) for a table of version 0 or newer than
 * RB_ROUTER_ABI_VERSION, or without a required function. */
int rb__ops_validate(const rb_router_ops *ops, rb_error *err);

/* The ops table and implementation behind a router handle (for the
 * benchmark harness, which calls lookup directly, and for debug checks).
 * The table is the host's copy in this ABI's layout: the fields a plugin
 * of an older version lacks are NULL. */
const rb_router_ops *rb__router_ops(const rb_router *r);
const void *rb__router_impl(const rb_router *r);

/* linear, the reference router: every other router is checked against it
 * (linear.c). */
extern const rb_router_ops rb__linear_ops;

#ifdef __cplusplus
}
#endif
#endif
