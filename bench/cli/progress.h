/*
 * progress.h — what a session shows on stderr while it measures, and how
 * long it says it will take.
 *
 * On a terminal: one line redrawn in place (at most ten times a second),
 *
 *   [#########...........] 45%  3/12 static-10000: trial 41/90 (hashseg)  1 min 12 s left
 *
 * In a log (not a terminal): one plain line per pass, as hyperfine does,
 *
 *   [3/12] static-10000: about 1 min 12 s left
 *
 * A pass is one scenario under one condition: choose measures each table
 * twice (warm throughput, then cold latency), and both passes are counted.
 * The time left comes from a model of every pass's work (rb_estimate_pass,
 * estimate.h), scaled, as the session goes, by how fast that work has
 * actually gone.
 */
#ifndef RB_CLI_PROGRESS_H
#define RB_CLI_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct progress {
    FILE *out;
    bool tty;
    size_t pass, passes; /* 1-based */
    char name[128];      /* the current pass's scenario */
    char what[160];      /* what it is doing */
    double total_s;      /* the model's seconds for every pass */
    double done_s;       /* the model's seconds of the finished passes */
    double pass_s;       /* the model's seconds of the current pass */
    double frac;         /* share of the current pass done, 0..1 */
    uint64_t start_ns, drawn_ns;
    bool drawn; /* a bar is on the screen (cleared before other output) */
} progress;

void progress_start(progress *p, FILE *out, bool tty, size_t passes, double total_s);
/* A new pass of pass_s model seconds begins. */
void progress_pass(progress *p, const char *name, double pass_s);
/* Within the pass: what it does, and the share of the pass done. */
void progress_step(progress *p, const char *what, double frac);
/* Remove the bar (before a table is printed); the next step redraws it. */
void progress_clear(progress *p);
/* Seconds left, by the model scaled by the speed observed so far. */
double progress_left_s(const progress *p);

/* "8 s", "2 min 05 s", "1 h 02 min" */
void progress_fmt_seconds(double s, char *buf, size_t cap);

#endif
