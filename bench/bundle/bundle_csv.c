/*
 * bundle_csv.c — trials.csv: one row per measured trial,
 *
 *     scenario,router,trial,position,lookups,ns                  (time)
 *     scenario,router,trial,position,lookups,hw_instructions     (hw-instructions)
 *     scenario,router,trial,position,lookups,instructions        (instructions)
 *     scenario,router,trial,position,lookups,cycles_est,instructions,data_refs,
 *         l1_misses,ll_misses                                    (cycles-est)
 *
 * trial is the 1-based round, position the 1-based place of the router in
 * that round's order, lookups the lookups the trial made and the sixth
 * column its value in the bundle's metric (elapsed or CPU nanoseconds, or a
 * count).  value / lookups is the trial's value per lookup, from which
 * every statistic in summary.json is computed.  Under cycles-est the raw
 * counts follow, and cycles_est = (instructions + data_refs - l1_misses) +
 * 5 (l1_misses - ll_misses) + 35 ll_misses (bench/measure/callgrind.h).  Fields holding a comma, a
 * quote or a line break are quoted as RFC 4180 says; warm-up and
 * calibration runs are not rows.
 */
#include "bundle.h"

#include "base_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CSV_COLUMNS 10 /* at most */

/* The header of the bundle's metric. */
static const char *csv_header(const rb_bundle *b, size_t *ncols)
{
    *ncols = 6;
    switch (b->metric) {
    case RB_METRIC_INSTRUCTIONS:
        return "scenario,router,trial,position,lookups,instructions";
    case RB_METRIC_HW_INSTRUCTIONS:
        return "scenario,router,trial,position,lookups,hw_instructions";
    case RB_METRIC_CYCLES_EST:
        *ncols = 10;
        return "scenario,router,trial,position,lookups,cycles_est,instructions,data_refs,"
               "l1_misses,ll_misses";
    default:
        return "scenario,router,trial,position,lookups,ns";
    }
}

static void put_field(rb_buf *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        rb_buf_puts(out, s);
        return;
    }
    rb_buf_puts(out, "\"");
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            rb_buf_puts(out, "\"\"");
        else
            rb_buf_append(out, p, 1);
    }
    rb_buf_puts(out, "\"");
}

int rb_bundle_csv_write(const rb_bundle *b, rb_buf *out, rb_error *err)
{
    size_t ncols;
    rb_buf_puts(out, csv_header(b, &ncols));
    rb_buf_puts(out, "\n");
    for (size_t i = 0; i < b->ntrials; i++) {
        const rb_bundle_trial *t = &b->trials_v[i];
        if (t->scenario >= b->nscenarios || t->result >= b->scenarios[t->scenario].nresults)
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "trial %zu names no result", i);
        const rb_bundle_scenario *s = &b->scenarios[t->scenario];
        put_field(out, s->name);
        rb_buf_puts(out, ",");
        put_field(out, s->results[t->result].router);
        rb_buf_printf(out, ",%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64, t->trial, t->position,
                      t->lookups, t->ns);
        if (ncols == 10)
            rb_buf_printf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, t->ir, t->data_refs,
                          t->l1_misses, t->ll_misses);
        rb_buf_puts(out, "\n");
    }
    return out->failed ? rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory") : RB_OK;
}

/* One field starting at *p (line ends at end); unquoted into buf. */
static bool get_field(const char **p, const char *end, char *buf, size_t cap)
{
    const char *s = *p;
    size_t n = 0;
    bool ok = true;
    if (s < end && *s == '"') {
        s++;
        for (;;) {
            if (s >= end) return false;
            if (*s == '"') {
                if (s + 1 < end && s[1] == '"') {
                    s++;
                } else {
                    s++;
                    break;
                }
            }
            if (n + 1 < cap)
                buf[n++] = *s;
            else
                ok = false;
            s++;
        }
    } else {
        while (s < end && *s != ',') {
            if (n + 1 < cap)
                buf[n++] = *s;
            else
                ok = false;
            s++;
        }
    }
    buf[n] = '\0';
    if (s < end && *s != ',') return false;
    *p = s < end ? s + 1 : s;
    return ok;
}

static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    if (!*s || *s < '0' || *s > '9') return false;
    char *e;
    errno = 0;
    unsigned long long v = strtoull(s, &e, 10);
    if (*e || errno == ERANGE || v > max) return false;
    *out = v;
    return true;
}

static int row_error(rb_error *err, size_t line, const char *what)
{
    int rc = rb__error(err, RB_EFORMAT, RB_NO_OFFSET, "trials.csv line %zu: %s", line, what);
    if (err) err->line = line;
    return rc;
}

static size_t find_scenario(const rb_bundle *b, const char *name)
{
    for (size_t i = 0; i < b->nscenarios; i++)
        if (strcmp(b->scenarios[i].name, name) == 0) return i;
    return SIZE_MAX;
}

int rb_bundle_csv_read(const char *text, size_t len, rb_bundle *b, rb_error *err)
{
    free(b->trials_v);
    b->trials_v = NULL;
    b->ntrials = 0;
    const char *p = text, *end = text + len;
    size_t line = 0, ncols;
    const char *header = csv_header(b, &ncols);
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *next = nl ? nl + 1 : end;
        if (le > p && le[-1] == '\r') le--;
        line++;
        if (line == 1) {
            if ((size_t)(le - p) != strlen(header) || memcmp(p, header, (size_t)(le - p))) {
                int rc = rb__error(err, RB_EFORMAT, RB_NO_OFFSET,
                                   "trials.csv line 1: the header of --metric %s is %s",
                                   rb_metric_name(b->metric), header);
                if (err) err->line = 1;
                return rc;
            }
            p = next;
            continue;
        }
        if (le == p) {
            p = next;
            continue; /* a trailing empty line */
        }
        char f[CSV_COLUMNS][RB_BUNDLE_NAME * 2];
        const char *q = p;
        for (size_t k = 0; k < ncols; k++) {
            if (q >= le && k > 0) return row_error(err, line, "fewer fields than the header");
            if (!get_field(&q, le, f[k], sizeof f[k]))
                return row_error(err, line, "a malformed or too long field");
        }
        if (q < le || (q == le && le > p && le[-1] == ','))
            return row_error(err, line, "more fields than the header");
        rb_bundle_trial t;
        memset(&t, 0, sizeof t);
        uint64_t trial, position;
        t.scenario = find_scenario(b, f[0]);
        if (t.scenario == SIZE_MAX) return row_error(err, line, "a scenario summary.json lacks");
        t.result = rb_bundle_result_index(&b->scenarios[t.scenario], f[1]);
        if (t.result == SIZE_MAX)
            return row_error(err, line, "a router the scenario in summary.json lacks");
        if (!parse_u64(f[2], UINT32_MAX, &trial) || trial == 0 ||
            !parse_u64(f[3], UINT32_MAX, &position) || position == 0 ||
            !parse_u64(f[4], UINT64_MAX, &t.lookups) || t.lookups == 0 ||
            !parse_u64(f[5], UINT64_MAX, &t.ns))
            return row_error(err, line,
                             "trial, position, lookups and the value must be whole numbers "
                             "(trial, position and lookups from 1)");
        if (ncols == 10 &&
            (!parse_u64(f[6], UINT64_MAX, &t.ir) || !parse_u64(f[7], UINT64_MAX, &t.data_refs) ||
             !parse_u64(f[8], UINT64_MAX, &t.l1_misses) ||
             !parse_u64(f[9], UINT64_MAX, &t.ll_misses)))
            return row_error(err, line, "the raw counts must be whole numbers");
        if (b->metric == RB_METRIC_INSTRUCTIONS) t.ir = t.ns;
        t.trial = (uint32_t)trial;
        t.position = (uint32_t)position;
        if (rb_bundle_add_trial(b, &t) < 0)
            return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory reading trials.csv");
        p = next;
    }
    if (line == 0) return row_error(err, 1, "empty file (no header)");
    return RB_OK;
}
