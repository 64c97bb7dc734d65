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
 * The time left comes from a model of every pass's work (progress_model),
 * scaled, as the session goes, by how fast that work has actually gone.
 */
#ifndef RB_CLI_PROGRESS_H
#define RB_CLI_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What the model needs to know about one pass. */
typedef struct progress_pass_shape {
    size_t routes, requests;
    size_t routers;     /* routers built and checked */
    size_t measured;    /* subjects timed (routers, peers; +1 for the cold stand-in) */
    bool generated;     /* the tables are generated first */
    bool linear;        /* linear is among them (its lookups grow with the table) */
    bool cold;          /* the application stand-in runs between lookups */
    size_t app_bytes;   /* the stand-in's bytes */
    bool counted;       /* Callgrind counts one replay instead of timed trials */
    unsigned rounds;    /* warm-up + measured rounds */
    unsigned trials;    /* the measured rounds: measured again when a busy machine ran them short */
    double min_trial_s; /* a trial's minimum length */
    bool cpu_clock;     /* trials last min_trial_s of CPU time, not of wall time */
} progress_pass_shape;

/* The model's seconds of one pass, in three parts. */
typedef struct progress_parts {
    double prep_s;      /* generating, building, checking every answer */
    double measure_s;   /* calibration, warm-up and the measured rounds */
    double remeasure_s; /* the rounds measured again (a busy machine) */
} progress_parts;

/* The model's seconds for one pass on this machine, where the process gets
 * cpu_share (0..1] of a core (progress_cpu_share); its parts into parts
 * when not NULL. */
double progress_model(const progress_pass_shape *shape, double cpu_share, progress_parts *parts);

/* The share of a core this process gets now: its CPU time over the wall
 * time of a 20 ms busy loop (1 on an idle machine, 0.1 under a load of 20
 * on 2 cores). */
double progress_cpu_share(void);

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
