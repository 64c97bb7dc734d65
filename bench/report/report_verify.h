/*
 * report_verify.h — the results of `routebench verify` (measure/verify.h's
 * runs) as text, a line a run and the totals of --all, and as the JSON
 * document of --json (schema routebench-verify, docs/measurement.md):
 *
 *   {"schema": "routebench-verify", "schema_version": 1,
 *    "runs": [{router, corpus, routes, requests, peer, skipped, [absent],
 *              error | route_count, refused, [first_refusal],
 *              request_count, agree_expected, agree_linear,
 *              disagreements: [{line, method, path, expected, got,
 *                               linear}], ok}],
 *    "totals": {runs, failed, skipped, peers_disagreeing}, "ok"}
 *
 * Renderers: nothing here prints.
 */
#ifndef RB_REPORT_VERIFY_H
#define RB_REPORT_VERIFY_H

#include "buf.h"
#include "verify.h"

/* A run that was skipped, or ran (r->status >= 0): its line and its first
 * disagreements.  A run that failed with an error has no text here: its
 * error is the caller's message. */
void rb_verify_run_text(const rb_verify_run *r, rb_buf *out);
/* "verify --all: N runs, F failed, S skipped[, P peer runs disagreeing ...]" */
void rb_verify_totals_text(const rb_verify_totals *t, rb_buf *out);

/* The runs of a JSON document, gathered one by one as they come. */
typedef struct rb_verify_doc rb_verify_doc;
rb_verify_doc *rb_verify_doc_new(void); /* NULL: out of memory */
void rb_verify_doc_add(rb_verify_doc *d, const rb_verify_run *r);
/* The document with totals t into out, ending in a newline; RB_ENOMEM. */
int rb_verify_doc_render(rb_verify_doc *d, const rb_verify_totals *t, rb_buf *out, rb_error *err);
void rb_verify_doc_free(rb_verify_doc *d);

#endif
