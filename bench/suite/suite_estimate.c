/*
 * suite_estimate.c — a session before its work (suite_estimate.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "suite_estimate.h"

#include "base_internal.h"
#include "callgrind.h"
#include "clock.h"
#include "compiled.h"
#include "metric.h"
#include "perfcount.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int rb_suite_metric_where(int metric, rb_error *err)
{
    if (metric == RB_METRIC_HW_INSTRUCTIONS) {
        rb_perf_counter c;
        int rc = rb_perf_open(&c, err);
        if (rc < 0) {
            char why[sizeof err->message];
            snprintf(why, sizeof why, "%s", err->message);
            return rb__error(err, rc, RB_NO_OFFSET,
                             "--metric hw-instructions: %s; --metric instructions counts "
                             "instructions exactly with Callgrind instead",
                             why);
        }
        rb_perf_close(&c);
        return RB_SUITE_METRIC_HERE;
    }
    if (!rb_metric_exact(metric) || rb_callgrind_child()) return RB_SUITE_METRIC_HERE;
    if (rb_callgrind_under_valgrind())
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "--metric %s starts Callgrind itself; run routebench without valgrind",
                         rb_metric_name(metric));
    return RB_SUITE_METRIC_CALLGRIND;
}

double rb_suite_cpu_share(void)
{
    uint64_t w0 = rb__monotonic_ns(), c0 = rb__thread_cpu_ns(), w1 = w0;
    volatile uint64_t sink = 0;
    while ((w1 = rb__monotonic_ns()) - w0 < 20000000ull)
        for (int i = 0; i < 1000; i++) sink = sink + (uint64_t)i;
    uint64_t c1 = rb__thread_cpu_ns();
    double share = (double)(c1 - c0) / (double)(w1 - w0);
    return share > 1 ? 1 : share < 0.02 ? 0.02 : share;
}

static bool has_linear(const rb_suite *s)
{
    for (size_t k = 0; k < s->nrouters; k++)
        if (strcmp(rb_ops_name(s->routers[k]), "linear") == 0) return true;
    return false;
}

static bool has_compiled(const rb_suite *s)
{
    for (size_t k = 0; k < s->nrouters; k++)
        if (s->routers[k] == &rb_bench_compiled_ops) return true;
    return false;
}

/* A file's lines (the routes or requests of a table); 0 for what is no
 * regular file (a <(...) pipe read here would be empty for the reader,
 * /dev/zero would never end: the reader refuses it). */
static size_t count_lines(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = 0;
    for (int c; (c = getc(f)) != EOF;) n += c == '\n';
    fclose(f);
    return n;
}

static size_t routes_of(const rb_scenario_spec *spec)
{
    return spec->kind == RB_SCENARIO_GENERATED ? spec->nroutes : count_lines(spec->routes_path);
}

size_t rb_suite_passes(const rb_suite *s)
{
    return s->scenarios.n * (s->both_conditions ? 2 : 1);
}

double rb_suite_pass_estimate(const rb_suite *s, size_t i, bool cold, double cpu_share,
                              rb_estimate_parts *parts)
{
    const rb_scenario_spec *spec = &s->scenarios.v[i];
    bool gen = spec->kind == RB_SCENARIO_GENERATED;
    rb_estimate_shape sh = {
        .routes = routes_of(spec),
        .requests = gen ? RB_SCENARIO_REQUESTS : count_lines(spec->requests_path),
        .routers = s->nrouters,
        .measured = s->nrouters,
        .peers = s->npeers,
        .generated = gen,
        .linear = has_linear(s),
        .compiled = has_compiled(s),
        .cold = cold,
        .app_bytes = cold ? s->app_bytes : 0,
        .counted = rb_metric_exact(s->metric),
        .jit = rb_suite_jit_peers(s),
        .warmup = s->proto.warmup,
        .trials = s->proto.trials,
        .min_trial_s = s->proto.min_trial_ms / 1e3,
        .cpu_clock = s->proto.clock == RB_BENCH_CLOCK_CPU,
    };
    return rb_estimate_pass(&sh, cpu_share, parts);
}

double rb_suite_estimate(const rb_suite *s, double cpu_share)
{
    double total = rb_estimate_run_start(rb_metric_exact(s->metric), cpu_share);
    for (size_t i = 0; i < s->scenarios.n; i++) {
        total += rb_suite_pass_estimate(s, i, !s->both_conditions && s->cache, cpu_share, NULL);
        if (s->both_conditions) total += rb_suite_pass_estimate(s, i, true, cpu_share, NULL);
    }
    return total;
}

/* Append ", word" (sep before all but the first) to list, if it fits. */
static void append(char *list, size_t cap, size_t *n, const char *sep, const char *word)
{
    int w = snprintf(list + *n, cap - *n, "%s%s", *n ? sep : "", word);
    if (w > 0 && (size_t)w < cap - *n) *n += (size_t)w;
}

size_t rb_suite_linear_slow(const rb_suite *s, char *tables, size_t tables_cap, char *others,
                            size_t others_cap)
{
    size_t nt = 0, no = 0, count = 0;
    tables[0] = others[0] = '\0';
    if (!has_linear(s)) return 0;
    for (size_t i = 0; i < s->scenarios.n; i++) {
        if (routes_of(&s->scenarios.v[i]) < RB_SUITE_LINEAR_WARN_ROUTES) continue;
        append(tables, tables_cap, &nt, ", ", s->scenarios.v[i].name);
        count++;
    }
    for (size_t k = 0; k < s->nrouters && count; k++)
        if (strcmp(rb_ops_name(s->routers[k]), "linear") != 0)
            append(others, others_cap, &no, ",", s->labels[k]);
    return count;
}
