/*
 * console_session.h — the terminal's lines around a session's tables
 * (report_console.h renders the tables): the intro before the work (what
 * is measured, how, on what, and whether the build can show what the
 * routers do), a scenario left out and who refused it, a peer runner's
 * agreement measured beside the run.  Renderers: nothing here prints.
 */
#ifndef RB_REPORT_CONSOLE_SESSION_H
#define RB_REPORT_CONSOLE_SESSION_H

#include "buf.h"
#include "bundle.h"
#include "harness.h"
#include "peer.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a session will measure, besides the facts of b. */
typedef struct rb_console_intro {
    const char *cmd; /* "run", "pair", "choose" */
    size_t scenarios, routers;
    int metric; /* rb_metric */
    rb_bench_protocol proto;
    uint64_t seed;
} rb_console_intro;

/* "routebench run: 2 scenarios x 3 routers, ...", the machine, and a
 * warning for an unoptimised or sanitized build. */
void rb_console_intro_text(const rb_bundle *b, const rb_console_intro *in, rb_buf *out);

/* "\nSCENARIO: skipped (SKIPPED lacks a feature of its routes)" ("every
 * router" when skipped is ""), then each refusal's router and reason. */
void rb_console_skipped(const char *scenario, const char *skipped, const rb_bundle_refusal *ref,
                        size_t nref, rb_buf *out);

/* A peer runner's agreement with EXPECTED and linear; nothing when it
 * agrees on every request, unless verbose. */
void rb_console_peer_note(const char *label, const rb_peer_agreement *a, bool verbose, rb_buf *out);

#endif
