/*
 * pair_selftest.c — `routebench pair --self-test`: runs bench/suite/selftest.h
 * (which loads the scenarios too) and prints its report (selftest_text.h).
 */
#include "cli.h"
#include "base_internal.h"
#include "selftest_text.h"
#include "session.h"
#include "machine.h"

#include <stdio.h>
#include <stdlib.h>

static void on_note(void *ctx, const char *what)
{
    (void)ctx;
    fprintf(stderr, "self-test: %s\n", what);
    fflush(stderr);
}

static void on_skip(void *ctx, const char *name)
{
    const session_options *o = ctx;
    fprintf(o->human, "self-test: %s skipped (%s lacks a feature of its routes)\n", name,
            o->run.labels[0]);
}

int pair_selftest(session_options *o, double effect, unsigned runs, bool gate, double fail_below)
{
    FILE *out = o->human;
    rb_error err;
    double threshold = gate ? fail_below : 1.0 - effect / 2.0;
    bool exact = rb_metric_exact(o->run.metric);
    if (exact && rb_callgrind_open(&o->run.cg, &err) < 0)
        return cli_error("pair", "%s", err.message);
    rb_selftest_loaded *l = malloc(sizeof *l);
    if (!l) return cli_system_error("pair", "out of memory");
    if (rb_selftest_load(&o->run.scenarios, o->run.seed, o->run.routers[0], on_skip, o, l, &err) <
        0) {
        cli_error("pair", "scenario %s: %s", l->failed, err.message);
        free(l);
        return CLI_USAGE;
    }
    if (l->n == 0) {
        free(l);
        return cli_error("pair", "no scenario %s supports", o->run.labels[0]);
    }
    double load_start = rb_machine_loadavg();
    rb_selftest_opts so = {o->run.routers[0], o->run.metric, o->run.proto, o->run.seed, effect,
                           threshold,         runs,          &o->run.cg,   on_note};
    rb_selftest_text_in in = {o->run.labels[0], &so, gate, l};
    rb_buf text = {0};
    rb_selftest_intro(&in, &text);
    cli_put(out, &text);
    fflush(out);

    rb_selftest_result r;
    int rc = rb_selftest_run(&so, l->v, l->n, NULL, NULL, &r, &err);
    if (rc == RB_OK) rb_selftest_text(&in, &r, load_start, rb_machine_loadavg(), &text);
    rb_selftest_loaded_free(l);
    free(l);
    if (rc < 0) {
        cli_error("pair", "self-test: %s", err.message);
        return rc == RB_ESTATE ? CLI_FAILED : CLI_USAGE;
    }
    cli_put(out, &text);
    return CLI_OK;
}
