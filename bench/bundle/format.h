/*
 * format.h — the number formats of every output: the terminal tables,
 * report.md, the SVG charts, the verdict and the HTTP report all write a
 * number through these, so one number reads the same everywhere.  A leaf:
 * it calls nothing of the project (google-benchmark's string_util).
 */
#ifndef RB_BENCH_FORMAT_H
#define RB_BENCH_FORMAT_H

#include "buf.h"

#include <stdbool.h>
#include <stddef.h>

/* ns per lookup: 3 significant digits without exponent ("9.21", "25.1", "843",
 * "41234"). */
void rb_format_ns(double ns, char *buf, size_t cap);
/* a rate: "39.8M", "1.21G", "850k" */
void rb_format_rate(double per_s, char *buf, size_t cap);
/* a duration from ns: "412 us", "3.10 ms", "1.25 s" */
void rb_format_duration(double ns, char *buf, size_t cap);
/* a ratio: "1.23x" style without the x: "1.234" below 10, "12.3" above */
void rb_format_ratio(double r, char *buf, size_t cap);
/* an exact ratio: as rb_format_ratio, with more digits when needed to
 * tell it from 1 ("1.000" only when exactly 1; "0.99967") */
void rb_format_exact_ratio(double r, char *buf, size_t cap);
/* an interval's bounds as rb_format_ratio writes them, with digits at
 * least min_digits after the point below 10 (the headline: 2; the
 * tables: 3), and more for a bound that would otherwise read as 1 while
 * it is not: an interval that excludes 1 never reads as including it
 * ("[1.0023, 2.25]", not "[1.00, 2.25]"). */
void rb_format_interval(double lo, double hi, int min_digits, char *lo_buf, char *hi_buf,
                        size_t cap);
/* A count's A/A spread (relative: 0.0015 for 0.15%) as text: "exact" when
 * 0, else "within ±0.15%" (two significant digits, so that a spread never
 * reads as zero). */
void rb_format_spread(double spread, char *buf, size_t cap);
/* A speed ratio with its interval, as a line says it: "1.46x [1.43, 1.49]"
 * (rb_format_interval with 2 digits), "1.462x (exact)" when exact,
 * "1.0010x (within ±0.30%)" when exact with a spread (a count's interval
 * [median / (1 + s), median x (1 + s)]: s = hi / median - 1), "1.46x (too
 * few pairs)" when too_few or a bound is not positive. */
void rb_format_speed(double median, double lo, double hi, bool too_few, bool exact, char *buf,
                     size_t cap);
/* s appended to o as XML/HTML text or attribute value: & < > " escaped,
 * other control bytes dropped (a newline kept when newlines). */
void rb_format_xml(rb_buf *o, const char *s, bool newlines);
/* Markdown md[0, len) appended to o with every '<' outside a code span
 * written "\\<": a name taken from a file name ("r<img src=x
 * onerror=...>") cannot open raw HTML where the Markdown is shown. */
void rb_format_md(rb_buf *o, const char *md, size_t len);

/* A line or paragraph written into a caller's fixed buffer: each
 * rb_text_put appends, and text past the end is cut at the buffer's last
 * byte (the buffer always ends in a NUL). */
typedef struct rb_text {
    char *buf;
    size_t cap, len;
} rb_text;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void rb_text_put(rb_text *t, const char *fmt, ...);

#endif
