/*
 * test_console_session.c — the terminal's lines around a session's
 * tables (bench/report/console_session.h): the intro says how a counted
 * metric is measured and warns of a sanitized build; a skipped scenario
 * names who lacks what (the verb agreeing with one or several routers);
 * a peer that agrees everywhere is not mentioned unless verbose.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "console_session.h"
#include "metric.h"

Test(console_session, intro_of_a_counted_metric_on_a_sanitized_build)
{
    rb_bundle b;
    rb_bundle_init(&b);
    snprintf(b.cpu_model, sizeof b.cpu_model, "Test CPU");
    b.cores = 2;
    b.optimized = true;
    b.sanitized = true;
    rb_console_intro in = {
        .cmd = "pair", .scenarios = 1, .routers = 2, .metric = RB_METRIC_INSTRUCTIONS, .seed = 7};
    rb_buf out = {0};
    rb_console_intro_text(&b, &in, &out);
    cr_expect_str_eq(out.data,
                     "routebench pair: 1 scenario x 2 routers, --metric instructions: Callgrind "
                     "counts one replay of each (after one uncounted), seed 7\n"
                     "in-process lookups on Test CPU (2 cores), not HTTP requests per second\n"
                     "WARNING: sanitized build: these numbers do not show what the routers can "
                     "do\n");
    rb_buf_free(&out);
    rb_bundle_free(&b);
}

Test(console_session, skipped_names_who_lacks_a_feature)
{
    rb_bundle_refusal ref[1];
    snprintf(ref[0].router, sizeof ref[0].router, "compiled");
    snprintf(ref[0].reason, sizeof ref[0].reason, "too many routes");
    rb_buf out = {0};
    rb_console_skipped("glob-100", "radix,hashseg", ref, 1, &out);
    cr_expect_str_eq(out.data, "\nglob-100: skipped (radix,hashseg lack a feature of its routes)\n"
                               "  compiled refused it: too many routes\n");
    rb_buf_free(&out);
    rb_console_skipped("glob-100", "", NULL, 0, &out);
    cr_expect_str_eq(out.data,
                     "\nglob-100: skipped (every router lacks a feature of its routes)\n");
    rb_buf_free(&out);
}

Test(console_session, an_agreeing_peer_is_said_only_when_verbose)
{
    rb_peer_agreement a = {.requests = 10, .agree_expected = 10, .agree_linear = 10};
    rb_buf out = {0};
    rb_console_peer_note("chi", &a, false, &out);
    cr_expect_eq(out.len, 0);
    a.agree_expected = 9;
    rb_console_peer_note("chi", &a, false, &out);
    cr_expect_str_eq(out.data, "  peer chi (its own process and timing loop): agrees with "
                               "EXPECTED on 9/10, with linear on 10/10 (route ids only: no "
                               "spans)\n");
    rb_buf_free(&out);
}
