/*
 * format.c — the number formats of every output (format.h).
 */
#include "format.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void rb_format_ns(double ns, char *buf, size_t cap)
{
    if (!isfinite(ns))
        snprintf(buf, cap, "-");
    else if (ns < 10)
        snprintf(buf, cap, "%.2f", ns);
    else if (ns < 100)
        snprintf(buf, cap, "%.1f", ns);
    else
        snprintf(buf, cap, "%.0f", ns);
}

void rb_format_rate(double r, char *buf, size_t cap)
{
    static const char *const units[] = {"", "k", "M", "G", "T"};
    size_t u = 0;
    while (r >= 1000 && u + 1 < sizeof units / sizeof units[0]) {
        r /= 1000;
        u++;
    }
    if (r < 10)
        snprintf(buf, cap, "%.2f%s", r, units[u]);
    else if (r < 100)
        snprintf(buf, cap, "%.1f%s", r, units[u]);
    else
        snprintf(buf, cap, "%.0f%s", r, units[u]);
}

void rb_format_duration(double ns, char *buf, size_t cap)
{
    if (ns < 1e3)
        snprintf(buf, cap, "%.0f ns", ns);
    else if (ns < 1e6)
        snprintf(buf, cap, "%.3g us", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, cap, "%.3g ms", ns / 1e6);
    else
        snprintf(buf, cap, "%.3g s", ns / 1e9);
}

void rb_format_ratio(double r, char *buf, size_t cap)
{
    if (!isfinite(r))
        snprintf(buf, cap, "-");
    else if (r < 10)
        snprintf(buf, cap, "%.3f", r);
    else if (r < 100)
        snprintf(buf, cap, "%.1f", r);
    else
        snprintf(buf, cap, "%.0f", r);
}

void rb_format_exact_ratio(double r, char *buf, size_t cap)
{
    rb_format_ratio(r, buf, cap);
    /* more digits while the text reads as exactly 1 but the ratio is not */
    for (int digits = 4; r != 1.0 && isfinite(r) && strtod(buf, NULL) == 1.0 && digits <= 9;
         digits++)
        snprintf(buf, cap, "%.*f", digits, r);
}

/* One bound with digits after the point (fewer above 10 and 100, as
 * rb_format_ratio), then more while its text reads as 1 and it is not. */
static void bound(double v, int digits, char *buf, size_t cap)
{
    if (!isfinite(v)) {
        snprintf(buf, cap, "-");
        return;
    }
    snprintf(buf, cap, "%.*f", v < 10 ? digits : v < 100 ? 1 : 0, v);
    for (int d = digits + 1; v != 1.0 && strtod(buf, NULL) == 1.0 && d <= 9; d++)
        snprintf(buf, cap, "%.*f", d, v);
}

void rb_format_interval(double lo, double hi, int min_digits, char *lo_buf, char *hi_buf,
                        size_t cap)
{
    bound(lo, min_digits, lo_buf, cap);
    bound(hi, min_digits, hi_buf, cap);
}

void rb_format_spread(double spread, char *buf, size_t cap)
{
    if (!(spread > 0))
        snprintf(buf, cap, "exact");
    else /* enough digits to show it: 0.15%, 0.0042% */
        snprintf(buf, cap, "within ±%.2g%%", 100 * spread);
}

void rb_format_speed(double median, double lo, double hi, bool too_few, bool exact, char *buf,
                     size_t cap)
{
    char m[32], l[32], h[32];
    if (exact) {
        rb_format_exact_ratio(median, m, sizeof m);
        rb_format_spread(median > 0 && hi > median ? hi / median - 1 : 0, l, sizeof l);
        snprintf(buf, cap, "%sx (%s)", m, l);
        return;
    }
    snprintf(m, sizeof m, "%.*f", median < 10 ? 2 : 1, median);
    if (too_few || !(lo > 0) || !(hi > 0)) {
        snprintf(buf, cap, "%sx (too few pairs)", m);
        return;
    }
    rb_format_interval(lo, hi, 2, l, h, sizeof l);
    snprintf(buf, cap, "%sx [%s, %s]", m, l, h);
}

void rb_format_xml(rb_buf *o, const char *s, bool newlines)
{
    for (; *s; s++) {
        switch (*s) {
        case '&':
            rb_buf_puts(o, "&amp;");
            break;
        case '<':
            rb_buf_puts(o, "&lt;");
            break;
        case '>':
            rb_buf_puts(o, "&gt;");
            break;
        case '"':
            rb_buf_puts(o, "&quot;");
            break;
        default:
            if ((unsigned char)*s >= 0x20 || (newlines && *s == '\n')) rb_buf_append(o, s, 1);
        }
    }
}

/* The length of the run of backticks at p (p < end). */
static size_t ticks(const char *p, const char *end)
{
    size_t n = 0;
    while (p + n < end && p[n] == '`') n++;
    return n;
}

void rb_format_md(rb_buf *o, const char *md, size_t len)
{
    const char *p = md, *end = md + len;
    while (p < end) {
        if (*p == '<') {
            rb_buf_puts(o, "\\<");
            p++;
            continue;
        }
        if (*p != '`') {
            rb_buf_append(o, p, 1);
            p++;
            continue;
        }
        /* a code span: the run of n backticks, to the next run of n on the
         * same line; without one the backticks are text */
        size_t n = ticks(p, end);
        const char *q = p + n, *close = NULL;
        while (q < end && *q != '\n' && !close) {
            size_t m = *q == '`' ? ticks(q, end) : 0;
            if (m == n) close = q;
            q += m ? m : 1;
        }
        const char *stop = close ? close + n : p + n;
        rb_buf_append(o, p, (size_t)(stop - p));
        p = stop;
    }
}

void rb_text_put(rb_text *t, const char *fmt, ...)
{
    if (t->len + 1 >= t->cap) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    t->len += (size_t)n;
    if (t->len >= t->cap) t->len = t->cap - 1;
}
