/*
 * progress.c — progress and the time left (progress.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include "clock.h"

#include <math.h>
#include <string.h>

/* ---- the display ----------------------------------------------------------------------------- */

void progress_fmt_seconds(double s, char *buf, size_t cap)
{
    if (s < 59.5)
        snprintf(buf, cap, "%.0f s", s < 1 ? 1 : s);
    else if (s < 3570)
        snprintf(buf, cap, "%.0f min %02.0f s", floor((s + 0.5) / 60), fmod(floor(s + 0.5), 60));
    else
        snprintf(buf, cap, "%.0f h %02.0f min", floor(s / 3600), floor(fmod(s, 3600) / 60));
}

void progress_start(progress *p, FILE *out, bool tty, size_t passes, double total_s)
{
    memset(p, 0, sizeof *p);
    p->out = out;
    p->tty = tty;
    p->passes = passes;
    p->total_s = total_s;
    p->start_ns = rb__monotonic_ns();
}

double progress_left_s(const progress *p)
{
    double done = p->done_s + p->frac * p->pass_s;
    double left = p->total_s - done;
    if (left < 0) left = 0;
    if (!(done > 0) || !(p->total_s > 0)) return left;
    /* trust the observed speed as much as the share of the work it covers */
    double elapsed = (double)(rb__monotonic_ns() - p->start_ns) / 1e9;
    double w = done / p->total_s;
    return left * ((1 - w) + w * elapsed / done);
}

static void draw(progress *p)
{
    char left[32];
    progress_fmt_seconds(progress_left_s(p), left, sizeof left);
    double share = p->total_s > 0 ? (p->done_s + p->frac * p->pass_s) / p->total_s : 0;
    if (share > 1) share = 1;
    char bar[21];
    size_t full = (size_t)(share * 20 + 0.5);
    for (size_t i = 0; i < 20; i++) bar[i] = i < full ? '#' : '.';
    bar[20] = '\0';
    /* one terminal line: cut what it does rather than wrap */
    fprintf(p->out, "\r\033[K[%s] %3.0f%%  %zu/%zu %.28s: %.36s  %s left", bar, share * 100,
            p->pass, p->passes, p->name, p->what, left);
    fflush(p->out);
    p->drawn = true;
}

void progress_pass(progress *p, const char *name, double pass_s)
{
    if (p->pass) p->done_s += p->pass_s;
    p->pass++;
    p->pass_s = pass_s;
    p->frac = 0;
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(p->what, sizeof p->what, "starting");
    if (p->tty) {
        draw(p);
        p->drawn_ns = rb__monotonic_ns();
        return;
    }
    char left[32];
    progress_fmt_seconds(progress_left_s(p), left, sizeof left);
    fprintf(p->out, "[%zu/%zu] %s: about %s left\n", p->pass, p->passes, name, left);
    fflush(p->out);
}

void progress_step(progress *p, const char *what, double frac)
{
    if (frac > p->frac) p->frac = frac > 1 ? 1 : frac;
    if (!p->tty) return;
    snprintf(p->what, sizeof p->what, "%s", what);
    uint64_t now = rb__monotonic_ns();
    if (p->drawn && now - p->drawn_ns < 100000000ull) return;
    p->drawn_ns = now;
    draw(p);
}

void progress_clear(progress *p)
{
    if (!p->tty || !p->drawn) return;
    fprintf(p->out, "\r\033[K");
    fflush(p->out);
    p->drawn = false;
}
